import type { RegistryCheckId, SessionId } from '@idv/contracts';
import type { Pool } from '@idv/kit';

/** One registry check as the runner sees it (the query itself is in the flow's state). */
export interface RegistryCheckRow {
  sessionId: SessionId;
  stepId: string;
  id: RegistryCheckId;
  status: 'pending' | 'decided';
  attempts: number;
  giveUpAt: Date;
}

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

  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<RegistryCheckRow[]> {
    const { rows } = await this.pool.query<Row>(
      `UPDATE registry_checks r SET next_attempt_at = $2, updated_at = now()
         FROM (SELECT session_id, step_id FROM registry_checks
                WHERE status <> 'done' AND next_attempt_at <= $1
                ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
        WHERE r.session_id = due.session_id AND r.step_id = due.step_id
        RETURNING r.session_id, r.step_id, r.id, r.status, r.attempts, r.give_up_at`,
      [now, leaseUntil, limit],
    );
    return rows.map(toRow);
  }

  /** An attempt without a definite answer: counted, asked again at `next`. Only while still pending. */
  async reschedule(check: RegistryCheckRow, attempts: number, next: Date, outcome: string): Promise<void> {
    await this.pool.query(
      `UPDATE registry_checks SET attempts = $4, next_attempt_at = $5, last_outcome = $6, updated_at = now()
        WHERE session_id = $1 AND step_id = $2 AND id = $3 AND status = 'pending'`,
      [check.sessionId, check.stepId, check.id, attempts, next, outcome],
    );
  }

  /** Something outside the runner failed (the sessions service): come back to it at `next`. */
  async retryAt(check: RegistryCheckRow, next: Date): Promise<void> {
    await this.pool.query(
      `UPDATE registry_checks SET next_attempt_at = $4, updated_at = now()
        WHERE session_id = $1 AND step_id = $2 AND id = $3 AND status <> 'done'`,
      [check.sessionId, check.stepId, check.id, next],
    );
  }

  async markDecided(check: RegistryCheckRow): Promise<void> {
    await this.pool.query(
      `UPDATE registry_checks SET status = 'decided', next_attempt_at = now(), updated_at = now()
        WHERE session_id = $1 AND step_id = $2 AND id = $3 AND status = 'pending'`,
      [check.sessionId, check.stepId, check.id],
    );
  }

  async markDone(check: RegistryCheckRow, outcome?: string): Promise<void> {
    await this.pool.query(
      `UPDATE registry_checks SET status = 'done', last_outcome = COALESCE($4, last_outcome), updated_at = now()
        WHERE session_id = $1 AND step_id = $2 AND id = $3`,
      [check.sessionId, check.stepId, check.id, outcome ?? null],
    );
  }

  /** Checks not done yet (a gauge of the backlog). */
  async countOpen(): Promise<number> {
    const { rows } = await this.pool.query<{ count: string }>(
      `SELECT count(*) AS count FROM registry_checks WHERE status <> 'done'`,
    );
    return Number(rows[0]?.count ?? 0);
  }
}
