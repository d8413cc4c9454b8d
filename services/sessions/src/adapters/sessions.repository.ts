import {
  TERMINAL_STATUSES,
  type AccountId,
  type ActivityState,
  type ApiKeyId,
  type DomainEvent,
  type Mode,
  type Outcome,
  type ProjectId,
  type SessionId,
  type SessionResult,
  type SessionStatus,
} from '@idv/contracts';
import { outboxCtes, outboxParams, type Cursor, type Queryable } from '@idv/kit';
import type { SessionFilter, SessionRecord, SessionSummaryRecord } from '../domain/session';
import type { Transition } from '../domain/session-state';

interface SessionRow {
  id: SessionId;
  account_id: AccountId;
  mode: Mode;
  project_id: ProjectId;
  config_version: number;
  is_try: boolean;
  status: SessionStatus;
  external_ref: string | null;
  link_token: string;
  api_key_id: ApiKeyId | null;
  expires_at: Date;
  redeemed_at: Date | null;
  idle_deadline: Date | null;
  result: SessionResult | null;
  completed_at: Date | null;
  created_at: Date;
}

function toRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    mode: row.mode,
    projectId: row.project_id,
    configVersion: row.config_version,
    isTry: row.is_try,
    status: row.status,
    externalRef: row.external_ref,
    linkToken: row.link_token,
    apiKeyId: row.api_key_id,
    expiresAt: row.expires_at,
    redeemedAt: row.redeemed_at,
    idleDeadline: row.idle_deadline,
    result: row.result,
    completedAt: row.completed_at,
    createdAt: row.created_at,
  };
}

/**
 * Inserts a pending session bound to the project's version current in the session's mode, in one
 * statement (atomic without an explicit transaction). Returns the bound version, or null when the
 * project is not this account's or has nothing published in that mode (the caller finds out which).
 */
export async function insertSession(db: Queryable, s: Omit<SessionRecord, 'configVersion' | 'isTry'>): Promise<number | null> {
  const { rows } = await db.query<{ config_version: number }>(
    `INSERT INTO sessions (id, account_id, mode, project_id, config_version, status, external_ref, link_token,
                           api_key_id, expires_at, created_at)
     SELECT $1, p.account_id, $3, p.id, v.version, $5, $6, $7, $8, $9, $10
       FROM projects p
      CROSS JOIN LATERAL (SELECT CASE WHEN $3 = 'test' THEN p.test_version ELSE p.live_version END AS version) v
      WHERE p.id = $4 AND p.account_id = $2 AND v.version IS NOT NULL
     RETURNING config_version`,
    [s.id, s.accountId, s.mode, s.projectId, s.status, s.externalRef, s.linkToken, s.apiKeyId, s.expiresAt, s.createdAt],
  );
  return rows[0]?.config_version ?? null;
}

/** A try's session, bound to the frozen draft `version` (below zero) of its project. */
export async function insertTrySession(db: Queryable, s: SessionRecord): Promise<void> {
  await db.query(
    `INSERT INTO sessions (id, account_id, mode, project_id, config_version, is_try, status, link_token, expires_at, created_at)
     VALUES ($1, $2, 'test', $3, $4, true, $5, $6, $7, $8)`,
    [s.id, s.accountId, s.projectId, s.configVersion, s.status, s.linkToken, s.expiresAt, s.createdAt],
  );
}

/** An account's tries created since `since`: the hourly cap. */
export async function countTriesSince(db: Queryable, accountId: AccountId, since: Date): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM sessions WHERE account_id = $1 AND is_try AND created_at >= $2',
    [accountId, since],
  );
  return rows[0]?.count ?? 0;
}

/**
 * The session by primary key, if it belongs to that account and mode. Ownership is checked on the row
 * rather than in the WHERE clause: with stale statistics the planner could otherwise pick the
 * (account, mode, created_at) index and scan an account's whole history (seen at 40k sessions).
 */
export async function findOwnedSession(
  db: Queryable,
  accountId: AccountId,
  mode: Mode,
  id: SessionId,
): Promise<SessionRecord | null> {
  const { rows } = await db.query<SessionRow>('SELECT * FROM sessions WHERE id = $1', [id]);
  const row = rows[0];
  return row && row.account_id === accountId && row.mode === mode && !row.is_try ? toRecord(row) : null;
}

export async function findSession(db: Queryable, id: SessionId): Promise<SessionRecord | null> {
  const { rows } = await db.query<SessionRow>('SELECT * FROM sessions WHERE id = $1', [id]);
  return rows[0] ? toRecord(rows[0]) : null;
}

export async function findByToken(db: Queryable, linkToken: string): Promise<SessionRecord | null> {
  const { rows } = await db.query<SessionRow>('SELECT * FROM sessions WHERE link_token = $1', [linkToken]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * Writes a transition computed by the state machine and its events, in one statement (atomic
 * without a transaction). The `status = from` guard makes the write a compare-and-set: a row that
 * moved meanwhile is not overwritten and no event is queued (returns null).
 */
export async function applyTransition(
  db: Queryable,
  id: SessionId,
  t: Transition,
  extra: { redeemedAt?: Date; idleDeadline?: Date },
  events: readonly DomainEvent[],
): Promise<SessionRecord | null> {
  const { rows } = await db.query<SessionRow>(
    `WITH updated AS (
       UPDATE sessions
          SET status = $3,
              result = COALESCE($4::jsonb, result),
              completed_at = $5,
              redeemed_at = COALESCE($6, redeemed_at),
              idle_deadline = COALESCE($7, idle_deadline)
        WHERE id = $1 AND status = $2
        RETURNING *),
     reasons AS (
       INSERT INTO session_reasons (account_id, mode, reason_code, created_at, session_id)
       SELECT updated.account_id, updated.mode, code, updated.created_at, updated.id
         FROM updated, jsonb_array_elements_text(COALESCE($4::jsonb->'reason_codes', '[]')) AS code
        WHERE NOT updated.is_try
       ON CONFLICT DO NOTHING),
     ${outboxCtes(8, 'updated')}
     SELECT updated.*, (SELECT count(*) FROM woken) AS woken FROM updated`,
    [
      id,
      t.from,
      t.to,
      t.result ? JSON.stringify(t.result) : null,
      t.completedAt,
      extra.redeemedAt ?? null,
      extra.idleDeadline ?? null,
      ...outboxParams(events),
    ],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * The redemption of a link in one statement, when the link is live: the write `applyTransition` makes
 * for `t` (pending → in_progress, which queues no event and records no reason), guarded by what the
 * read before it would have checked (the token, not redeemed yet, pending, not past `expires_at` at
 * `redeemedAt`). Null when a guard fails or the row moved: the caller reads it to say why.
 */
export async function redeemLiveLink(
  db: Queryable,
  linkToken: string,
  t: Transition,
  extra: { redeemedAt: Date; idleDeadline: Date },
): Promise<SessionRecord | null> {
  const { rows } = await db.query<SessionRow>(
    `UPDATE sessions
        SET status = $3,
            result = COALESCE($4::jsonb, result),
            completed_at = $5,
            redeemed_at = $6,
            idle_deadline = $7
      WHERE link_token = $1 AND status = $2 AND redeemed_at IS NULL AND expires_at > $6
      RETURNING *`,
    [linkToken, t.from, t.to, t.result ? JSON.stringify(t.result) : null, t.completedAt, extra.redeemedAt, extra.idleDeadline],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * Pushes the idle deadline of every named session that has not ended, in one statement; says which
 * were pushed (`active`) and which had ended (`terminal`). Unknown ids are missing from the answer.
 */
export async function pushIdleDeadlines(
  db: Queryable,
  ids: readonly SessionId[],
  deadline: Date,
): Promise<Map<SessionId, Exclude<ActivityState, 'not_found'>>> {
  const { rows } = await db.query<{ id: SessionId; pushed: boolean }>(
    `WITH pushed AS (
       UPDATE sessions SET idle_deadline = GREATEST(idle_deadline, $2) WHERE id = ANY($1) AND NOT (status = ANY($3))
       RETURNING id)
     SELECT s.id, pushed.id IS NOT NULL AS pushed FROM sessions s LEFT JOIN pushed ON pushed.id = s.id
      WHERE s.id = ANY($1)`,
    [ids, deadline, TERMINAL_STATUSES],
  );
  return new Map(rows.map((row) => [row.id, row.pushed ? 'active' : 'terminal']));
}

/**
 * Sets the idle deadline of a session that has not ended, whatever it was: a hold put off to a later
 * instant, or a hold released (the deadline brought back to one idle period from now). Null when the
 * session is unknown; `terminal` when it already ended.
 */
export async function setIdleDeadline(db: Queryable, id: SessionId, deadline: Date): Promise<'active' | 'terminal' | null> {
  const { rows } = await db.query<{ pushed: boolean }>(
    `WITH pushed AS (
       UPDATE sessions SET idle_deadline = $2 WHERE id = $1 AND NOT (status = ANY($3)) RETURNING id)
     SELECT pushed.id IS NOT NULL AS pushed FROM sessions s LEFT JOIN pushed ON pushed.id = s.id WHERE s.id = $1`,
    [id, deadline, TERMINAL_STATUSES],
  );
  if (!rows[0]) return null;
  return rows[0].pushed ? 'active' : 'terminal';
}

/** Newest first, strictly after the cursor's (created_at, id): stable under concurrent inserts. */
export async function listSessions(
  db: Queryable,
  accountId: AccountId,
  mode: Mode,
  limit: number,
  after: Cursor | null,
): Promise<SessionRecord[]> {
  const params: unknown[] = [accountId, mode, limit + 1];
  let keyset = '';
  if (after) {
    params.push(after.createdAt, after.id);
    keyset = 'AND (created_at, id) < ($4::timestamptz, $5)';
  }
  const { rows } = await db.query<SessionRow>(
    `SELECT * FROM sessions WHERE account_id = $1 AND mode = $2 AND NOT is_try ${keyset}
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    params,
  );
  return rows.map(toRecord);
}

/**
 * An account's sessions of one mode, filtered, newest first strictly after the cursor (tries apart). The
 * result's personal data is never read: only its outcome and reason codes. Each filter is one indexed
 * condition; which index answers is measured in bench/dashboard (docs/dashboard.md "The sessions list").
 */
export async function listAccountSessions(
  db: Queryable,
  accountId: AccountId,
  filter: SessionFilter & { after: Cursor | null; limit: number },
): Promise<SessionSummaryRecord[]> {
  const params: unknown[] = [accountId, filter.mode];
  const bind = (value: unknown) => `$${params.push(value)}`;
  // With a reason code the rows come from its index in the list's order; the order keys are then its copies.
  const ordered = filter.reasonCode ? 'r' : 's';
  const from = filter.reasonCode ? `session_reasons r JOIN sessions s ON s.id = r.session_id` : 'sessions s';
  const where = [`${ordered}.account_id = $1`, `${ordered}.mode = $2`];
  if (filter.reasonCode) where.push(`r.reason_code = ${bind(filter.reasonCode)}`);
  else where.push('NOT s.is_try');
  if (filter.status) where.push(`s.status = ${bind(filter.status)}`);
  // The outcome is the status of a session that has one, which lets the status index answer it.
  if (filter.outcome) where.push(`s.status = ${bind(filter.outcome)}`, `s.result->>'outcome' = $${params.length}`);
  if (filter.projectId) where.push(`s.project_id = ${bind(filter.projectId)}`);
  if (filter.externalRef) where.push(`s.external_ref = ${bind(filter.externalRef)}`);
  if (filter.createdFrom) where.push(`${ordered}.created_at >= ${bind(filter.createdFrom)}`);
  if (filter.createdTo) where.push(`${ordered}.created_at < ${bind(filter.createdTo)}`);
  if (filter.after) {
    const key = filter.reasonCode ? 'r.session_id' : 's.id';
    where.push(`(${ordered}.created_at, ${key}) < (${bind(filter.after.createdAt)}::timestamptz, ${bind(filter.after.id)})`);
  }
  const order = filter.reasonCode ? 'r.created_at DESC, r.session_id DESC' : 's.created_at DESC, s.id DESC';
  const { rows } = await db.query<{
    id: SessionId;
    mode: Mode;
    status: SessionStatus;
    project_id: ProjectId;
    external_ref: string | null;
    outcome: Outcome | null;
    reason_codes: string[] | null;
    created_at: Date;
    completed_at: Date | null;
  }>(
    `SELECT s.id, s.mode, s.status, s.project_id, s.external_ref, s.result->>'outcome' AS outcome,
            s.result->'reason_codes' AS reason_codes, s.created_at, s.completed_at
       FROM ${from} WHERE ${where.join(' AND ')}
      ORDER BY ${order} LIMIT ${bind(filter.limit + 1)}`,
    params,
  );
  return rows.map((row) => ({
    id: row.id,
    mode: row.mode,
    status: row.status,
    projectId: row.project_id,
    externalRef: row.external_ref,
    outcome: row.outcome,
    reasonCodes: row.reason_codes ?? [],
    createdAt: row.created_at,
    completedAt: row.completed_at,
  }));
}

/**
 * Sessions whose timer is due, locked for this transaction; rows another replica holds are skipped,
 * so each timer fires once. `kind` picks the timer: link expiry (pending) or abandonment (in_progress).
 */
export async function lockDue(db: Queryable, kind: 'expiry' | 'abandonment', now: Date, limit: number): Promise<SessionRecord[]> {
  const sql =
    kind === 'expiry'
      ? `SELECT * FROM sessions WHERE status = 'pending' AND expires_at <= $1
          ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`
      : `SELECT * FROM sessions WHERE status = 'in_progress' AND idle_deadline <= $1
          ORDER BY idle_deadline LIMIT $2 FOR UPDATE SKIP LOCKED`;
  const { rows } = await db.query<SessionRow>(sql, [now, limit]);
  return rows.map(toRecord);
}

/** Timers past their deadline and not fired yet, and the oldest deadline among them: the timer job's backlog. */
export async function dueTimers(db: Queryable, now: Date): Promise<{ depth: number; oldestDueAt: Date | null }> {
  const { rows } = await db.query<{ depth: number; oldest: Date | null }>(
    `SELECT count(*)::int AS depth, min(due) AS oldest FROM (
       SELECT expires_at AS due FROM sessions WHERE status = 'pending' AND expires_at <= $1
       UNION ALL
       SELECT idle_deadline FROM sessions WHERE status = 'in_progress' AND idle_deadline <= $1) AS timers`,
    [now],
  );
  return { depth: rows[0]?.depth ?? 0, oldestDueAt: rows[0]?.oldest ?? null };
}

/**
 * Retention of `result.document`: one batch of sessions completed before `cutoff` loses its document and
 * says when (`document_removed_at`), so a GET tells the data went rather than changing shape silently.
 * Replicas skip each other's rows. Returns how many sessions.
 */
export async function removeDocumentsCompletedBefore(
  db: Queryable,
  cutoff: Date,
  removedAt: Date,
  limit: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE sessions SET result = (result - 'document') || jsonb_build_object('document_removed_at', $3::text)
      WHERE id IN (SELECT id FROM sessions WHERE result ? 'document' AND completed_at < $1
                    ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [cutoff, limit, removedAt.toISOString()],
  );
  return rowCount ?? 0;
}

/** A session as the usage export lists it: ids, states and billing only. */
export interface UsageRecord {
  id: SessionId;
  mode: Mode;
  projectId: ProjectId;
  configVersion: number;
  status: SessionStatus;
  outcome: string | null;
  createdAt: Date;
  completedAt: Date | null;
  tokensDebited: number;
}

interface UsageRow {
  id: SessionId;
  mode: Mode;
  project_id: ProjectId;
  config_version: number;
  status: SessionStatus;
  outcome: string | null;
  created_at: Date;
  completed_at: Date | null;
  tokens_debited: number;
}

/** One batch of the month's sessions for the CSV export, oldest first, after (created_at, id). */
export async function usageBatch(
  db: Queryable,
  accountId: AccountId,
  from: Date,
  to: Date,
  after: { createdAt: Date; id: SessionId } | null,
  limit: number,
): Promise<UsageRecord[]> {
  const { rows } = await db.query<UsageRow>(
    `SELECT s.id, s.mode, s.project_id, s.config_version, s.status, s.result->>'outcome' AS outcome,
            s.created_at, s.completed_at, COALESCE(l.tokens, 0) AS tokens_debited
       FROM sessions s LEFT JOIN balance_ledger l ON l.session_id = s.id
      WHERE s.account_id = $1 AND s.created_at >= $2 AND s.created_at < $3 AND NOT s.is_try
        AND ($4::timestamptz IS NULL OR (s.created_at, s.id) > ($4::timestamptz, $5))
      ORDER BY s.created_at, s.id LIMIT $6`,
    [accountId, from, to, after?.createdAt ?? null, after?.id ?? '', limit],
  );
  return rows.map((row) => ({
    id: row.id,
    mode: row.mode,
    projectId: row.project_id,
    configVersion: row.config_version,
    status: row.status,
    outcome: row.outcome,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    tokensDebited: row.tokens_debited,
  }));
}
