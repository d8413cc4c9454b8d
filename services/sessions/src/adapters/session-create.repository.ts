import type { Queryable } from '@idv/kit';
import { DEFAULT_THRESHOLD_REFRESH_MS } from '../domain/balance-alerts';
import type { IdempotencyRecord, IdempotencyScope } from '../domain/idempotency';
import type { SessionRecord } from '../domain/session';
import { debitCtes, toDebitedBalance, type DebitedBalance, type DebitedRow } from './ledger.repository';

/**
 * The create's Idempotency-Key part: the scope's advisory lock id, the request's hash, and the response body
 * to store, cut around the session's config version id (`cfg_` + 8 digits), which only the insert knows.
 */
export interface CreateKey {
  scope: IdempotencyScope;
  lockKey: string;
  requestHash: string;
  bodyBeforeVersion: string;
  bodyAfterVersion: string;
}

export type CreateOutcome =
  /** Another request holds the key's lock: it is in flight. */
  | { kind: 'in_flight' }
  /** The key's record (a committed create): replay it or refuse it. */
  | { kind: 'recorded'; record: IdempotencyRecord }
  /** Not this account's project, or nothing published in the mode: nothing was written. */
  | { kind: 'no_version' }
  /** Inserted (and the record stored); `debited` null when a debit was asked and no token was left. */
  | { kind: 'created'; configVersion: number; debited: DebitedBalance | null };

type OutcomeRow = Partial<DebitedRow> & {
  locked: boolean;
  config_version: number | null;
  request_hash: string | null;
  response_status: number | null;
  response_body: string | null;
};

/**
 * Creates a session in one statement (issue 43: the create with a key was six round trips): with a key, it takes
 * the key's transaction-level advisory lock without waiting, reads the key's record, and only when the lock is
 * held and there is no record inserts the session bound to the project's current version, and its record with
 * the response; with `debit`, it debits one token for it. Alone (autocommit) the statement is the transaction
 * and the lock lasts as long as it; in a transaction (a live create: its alert may need a second statement)
 * the lock lasts until its commit.
 *
 * The statement reads with the snapshot it started with, possibly taken before a create with the same key
 * committed and released the lock: it then inserts, and the record's primary key refuses the second record
 * (unique violation, everything rolled back). The caller runs it again, and the new snapshot sees the record.
 */
export async function createSession(
  db: Queryable,
  s: Omit<SessionRecord, 'configVersion' | 'isTry'>,
  options: { key?: CreateKey; debit: boolean },
): Promise<CreateOutcome> {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const { key, debit } = options;
  const accountId = bind(s.accountId);
  const mode = bind(s.mode);
  const apiKeyId = bind(s.apiKeyId);
  const sessionId = bind(s.id);
  const ctes: string[] = [];
  let insertGuard = '';
  const idempotencyKey = key ? bind(key.scope.key) : '';
  if (key) {
    // MATERIALIZED: the lock is taken once, whatever reads it.
    ctes.push(`lock AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(${bind(key.lockKey)}::bigint) AS locked)`);
    ctes.push(`existing AS MATERIALIZED (
       SELECT request_hash, response_status, response_body FROM idempotency_records
        WHERE account_id = ${accountId} AND mode = ${mode} AND api_key_id = ${apiKeyId}
          AND idempotency_key = ${idempotencyKey} AND (SELECT locked FROM lock))`);
    insertGuard = 'AND (SELECT locked FROM lock) AND NOT EXISTS (SELECT 1 FROM existing)';
  }
  ctes.push(`inserted AS (
       INSERT INTO sessions (id, account_id, mode, project_id, config_version, status, external_ref, link_token,
                             api_key_id, expires_at, created_at)
       SELECT ${sessionId}, p.account_id, ${mode}, p.id, v.version, ${bind(s.status)}, ${bind(s.externalRef)},
              ${bind(s.linkToken)}, ${apiKeyId}, ${bind(s.expiresAt)}, ${bind(s.createdAt)}
         FROM projects p
        CROSS JOIN LATERAL (SELECT CASE WHEN ${mode} = 'test' THEN p.test_version ELSE p.live_version END AS version) v
        WHERE p.id = ${bind(s.projectId)} AND p.account_id = ${accountId} AND v.version IS NOT NULL ${insertGuard}
       RETURNING config_version)`);
  if (key) {
    // The body as sent: the same text as `configVersionId` makes (versions are 1 to 99,999,999).
    ctes.push(`recorded AS (
       INSERT INTO idempotency_records (account_id, mode, api_key_id, idempotency_key, request_hash, response_status, response_body)
       SELECT ${accountId}, ${mode}, ${apiKeyId}, ${idempotencyKey}, ${bind(key.requestHash)}, 201,
              ${bind(key.bodyBeforeVersion)} || 'cfg_' || lpad(config_version::text, 8, '0') || ${bind(key.bodyAfterVersion)}
         FROM inserted)`);
  }
  if (debit) ctes.push(debitCtes(accountId, sessionId, bind(DEFAULT_THRESHOLD_REFRESH_MS), 'EXISTS (SELECT 1 FROM inserted)'));
  const { rows } = await db.query<OutcomeRow>(
    `WITH ${ctes.join(',\n     ')}
     SELECT ${key ? '(SELECT locked FROM lock)' : 'true'} AS locked,
            (SELECT config_version FROM inserted) AS config_version,
            ${key ? 'existing.*' : 'NULL AS request_hash, NULL AS response_status, NULL AS response_body'}
            ${debit ? ', debited.*' : ''}
       FROM (SELECT 1) AS one
            ${key ? 'LEFT JOIN existing ON true' : ''}
            ${debit ? 'LEFT JOIN debited ON true' : ''}`,
    params,
  );
  const row = rows[0]!;
  if (!row.locked) return { kind: 'in_flight' };
  if (row.request_hash !== null && row.response_status !== null && row.response_body !== null) {
    return {
      kind: 'recorded',
      record: { requestHash: row.request_hash, responseStatus: row.response_status, responseBody: row.response_body },
    };
  }
  if (row.config_version === null) return { kind: 'no_version' };
  const debited = debit && row.balance !== null && row.balance !== undefined ? toDebitedBalance(row as DebitedRow) : null;
  return { kind: 'created', configVersion: row.config_version, debited };
}

/** The statement met a record committed after its snapshot was taken (see `createSession`): run it again. */
export function isRecordRace(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && e.constraint === 'idempotency_records_pkey';
}
