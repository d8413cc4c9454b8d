import type { Queryable } from '@idv/kit';
import { idempotencyLockKey, type IdempotencyRecord, type IdempotencyScope } from '../domain/idempotency';

const WHERE = 'account_id = $1 AND mode = $2 AND api_key_id = $3 AND idempotency_key = $4';
const scopeParams = (s: IdempotencyScope) => [s.accountId, s.mode, s.apiKeyId, s.key];

/**
 * Takes the scope's transaction-level advisory lock without waiting: false means another request
 * with the same key is in flight right now. Released by the transaction's commit or rollback, and
 * by the server if the process dies, so a key can never stay stuck in flight.
 */
export async function tryLock(db: Queryable, scope: IdempotencyScope): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [
    idempotencyLockKey(scope),
  ]);
  return rows[0]?.locked === true;
}

export async function find(db: Queryable, scope: IdempotencyScope): Promise<IdempotencyRecord | null> {
  const { rows } = await db.query<{ request_hash: string; response_status: number; response_body: string }>(
    `SELECT request_hash, response_status, response_body FROM idempotency_records WHERE ${WHERE}`,
    scopeParams(scope),
  );
  const row = rows[0];
  return row ? { requestHash: row.request_hash, responseStatus: row.response_status, responseBody: row.response_body } : null;
}

/** Stores the response exactly as it was sent, in the transaction that created the session. */
export async function insert(db: Queryable, scope: IdempotencyScope, hash: string, status: number, body: string): Promise<void> {
  await db.query(
    `INSERT INTO idempotency_records (account_id, mode, api_key_id, idempotency_key, request_hash, response_status, response_body)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [...scopeParams(scope), hash, status, body],
  );
}

export async function deleteOlderThan(db: Queryable, hours: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM idempotency_records WHERE created_at < now() - make_interval(hours => $1)', [
    hours,
  ]);
  return rowCount ?? 0;
}
