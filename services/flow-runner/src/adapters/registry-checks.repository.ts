import type { RegistryCheckId, SessionId } from '@idv/contracts';
import type { Pool } from '@idv/kit';
import { registryRetryTimeline } from '../domain/timeline';
import { loggedChange } from './timeline.repository';

/** One registry check as the runner sees it (the query itself is in the flow's state). */
export interface RegistryCheckRow {
  sessionId: SessionId;
  stepId: string;
  id: RegistryCheckId;
  status: 'pending' | 'decided';
  attempts: number;
  giveUpAt: Date;
}

/**
 * A check as claimed: when it had come due (the job's lag) and how many claims before this one ended
 * without an outcome (the job's dead-letter count).
 */
export type ClaimedRegistryCheck = RegistryCheckRow & { dueAt: Date; earlierFailures: number };

interface Row {
  session_id: SessionId;
  step_id: string;
  id: RegistryCheckId;
  status: 'pending' | 'decided';
  attempts: number;
  give_up_at: Date;
}

const toRow = (row: Row): RegistryCheckRow => ({
  sessionId: row.session_id,
  stepId: row.step_id,
  id: row.id,
  status: row.status,
  attempts: row.attempts,
  giveUpAt: row.give_up_at,
});

/**
 * The runner's side of `registry_checks` (the flow store schedules and decides them with the flow).
 * Claiming leases a row by pushing its next attempt to `leaseUntil` in one statement over rows locked
 * with SKIP LOCKED: replicas never take the same check at once, and a check whose replica died comes
 * due again when its lease ends.
 */
export class RegistryChecksRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Claims: each claim counts in `unfinished_claims` until an outcome is written (every other write here
   * resets it), so a check whose claims keep ending without one (a failure, or a replica that died
   * holding it) is seen by every replica.
   */
  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedRegistryCheck[]> {
    const { rows } = await this.pool.query<Row & { due_at: Date; earlier_failures: number }>(
      `UPDATE registry_checks r SET next_attempt_at = $2, unfinished_claims = r.unfinished_claims + 1, updated_at = now()
         FROM (SELECT session_id, step_id, next_attempt_at FROM registry_checks
                WHERE status <> 'done' AND next_attempt_at <= $1
                ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
        WHERE r.session_id = due.session_id AND r.step_id = due.step_id
        RETURNING r.session_id, r.step_id, r.id, r.status, r.attempts, r.give_up_at, due.next_attempt_at AS due_at,
                  r.unfinished_claims - 1 AS earlier_failures`,
      [now, leaseUntil, limit],
    );
    return rows.map((row) => ({ ...toRow(row), dueAt: row.due_at, earlierFailures: row.earlier_failures }));
  }

  /** Checks due at `now` and when the oldest came due: the job's queue depth and age. */
  async dueBacklog(now: Date): Promise<{ depth: number; oldestDueAt: Date | null }> {
    const { rows } = await this.pool.query<{ depth: number; oldest: Date | null }>(
      `SELECT count(*)::int AS depth, min(next_attempt_at) AS oldest FROM registry_checks
        WHERE status <> 'done' AND next_attempt_at <= $1`,
      [now],
    );
    return { depth: rows[0]?.depth ?? 0, oldestDueAt: rows[0]?.oldest ?? null };
  }

  /** Milliseconds from `now` until the next open check comes due (negative: due already), null when none. */
  async nextDueInMs(now: Date): Promise<number | null> {
    const { rows } = await this.pool.query<{ ms: number | null }>(
      `SELECT (extract(epoch FROM (min(next_attempt_at) - $1::timestamptz)) * 1000)::float8 AS ms
         FROM registry_checks WHERE status <> 'done'`,
      [now],
    );
    return rows[0]?.ms ?? null;
  }

  /**
   * An attempt without a definite answer: counted, asked again at `next`. Only while still pending. The
   * session's timeline gets the attempt in the same statement (`cause`: why, never what was asked).
   */
  async reschedule(check: RegistryCheckRow, attempts: number, next: Date, outcome: string, cause?: string): Promise<void> {
    const { text, values } = loggedChange(
      `UPDATE registry_checks r SET attempts = $4, next_attempt_at = $5, last_outcome = $6, unfinished_claims = 0, updated_at = now()
        WHERE session_id = $1 AND step_id = $2 AND id = $3 AND status = 'pending'
        RETURNING r.session_id, (SELECT f.account_id FROM flows f WHERE f.session_id = r.session_id) AS account_id`,
      [check.sessionId, check.stepId, check.id, attempts, next, outcome],
      [
        {
          sessionId: check.sessionId,
          drafts: registryRetryTimeline(check.stepId, attempts, next, cause),
        },
      ],
    );
    await this.pool.query(text, values);
  }

  async markDecided(check: RegistryCheckRow): Promise<void> {
    await this.pool.query(
      `UPDATE registry_checks SET status = 'decided', next_attempt_at = now(), unfinished_claims = 0, updated_at = now()
        WHERE session_id = $1 AND step_id = $2 AND id = $3 AND status = 'pending'`,
      [check.sessionId, check.stepId, check.id],
    );
  }

  async markDone(check: RegistryCheckRow, outcome?: string): Promise<void> {
    await this.pool.query(
      `UPDATE registry_checks SET status = 'done', last_outcome = COALESCE($4, last_outcome), unfinished_claims = 0,
                                  updated_at = now()
        WHERE session_id = $1 AND step_id = $2 AND id = $3`,
      [check.sessionId, check.stepId, check.id, outcome ?? null],
    );
  }

  /** Checks not done yet and when the oldest of them was scheduled (gauges of the backlog, through the partial index). */
  async openBacklog(): Promise<{ open: number; oldestCreatedAt: Date | null }> {
    const { rows } = await this.pool.query<{ open: number; oldest: Date | null }>(
      `SELECT count(*)::int AS open, min(created_at) AS oldest FROM registry_checks WHERE status <> 'done'`,
    );
    return { open: rows[0]?.open ?? 0, oldestCreatedAt: rows[0]?.oldest ?? null };
  }

  /** Checks not done yet (a gauge of the backlog). */
  async countOpen(): Promise<number> {
    const { rows } = await this.pool.query<{ count: string }>(
      `SELECT count(*) AS count FROM registry_checks WHERE status <> 'done'`,
    );
    return Number(rows[0]?.count ?? 0);
  }
}
