import type { AccountId, AccountStatus, ApiKeyId, Mode, Scope } from '@idv/contracts';
import type { Queryable } from '@idv/kit';
import type { ApiKeyRecord, ResolvedKeyRecord } from '../domain/api-keys';

interface KeyRow {
  id: ApiKeyId;
  account_id: AccountId;
  name: string;
  mode: Mode;
  scopes: Scope[];
  secret_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revokes_at: Date | null;
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    mode: row.mode,
    scopes: row.scopes,
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    revokesAt: row.revokes_at,
  };
}

export async function insertKey(
  db: Queryable,
  accountId: AccountId,
  key: { id: ApiKeyId; name: string; mode: Mode; scopes: Scope[]; secretHash: string },
): Promise<ApiKeyRecord> {
  const { rows } = await db.query<KeyRow>(
    `INSERT INTO api_keys (id, account_id, name, mode, scopes, secret_hash)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [key.id, accountId, key.name, key.mode, key.scopes, key.secretHash],
  );
  return toRecord(rows[0]!);
}

export async function listKeys(db: Queryable, accountId: AccountId): Promise<ApiKeyRecord[]> {
  const { rows } = await db.query<KeyRow>('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, id DESC', [
    accountId,
  ]);
  return rows.map(toRecord);
}

/** How many of an account's live keys work now (`isRevoked` in SQL: a roll's old key counts until its time). */
export async function countLiveKeys(db: Queryable, accountId: AccountId): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM api_keys
      WHERE account_id = $1 AND mode = 'live' AND revoked_at IS NULL AND (revokes_at IS NULL OR revokes_at > now())`,
    [accountId],
  );
  return rows[0]!.n;
}

/**
 * Revokes once: a second revoke keeps the first revoked_at. By key id alone: the operator revokes a
 * key without naming its account.
 */
export async function revokeKey(db: Queryable, keyId: ApiKeyId): Promise<ApiKeyRecord | null> {
  const { rows } = await db.query<KeyRow>(
    'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING *',
    [keyId],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

export async function resolveKey(db: Queryable, secretHash: string): Promise<ResolvedKeyRecord | null> {
  const { rows } = await db.query<KeyRow & { account_status: AccountStatus }>(
    `SELECT k.*, a.status AS account_status
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.secret_hash = $1`,
    [secretHash],
  );
  const row = rows[0];
  return row ? { key: toRecord(row), accountStatus: row.account_status } : null;
}

/** last_used_at is kept to the minute: one write per key per minute at most, off the hot path. */
export async function touchKey(db: Queryable, keyId: ApiKeyId): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [keyId],
  );
}

/** Schedules the revocation of a key not revoked yet (a roll with a delay); null when it is revoked already. */
export async function scheduleRevocation(db: Queryable, keyId: ApiKeyId, at: Date): Promise<ApiKeyRecord | null> {
  const { rows } = await db.query<KeyRow>(
    'UPDATE api_keys SET revokes_at = $2 WHERE id = $1 AND revoked_at IS NULL AND (revokes_at IS NULL OR revokes_at > now()) RETURNING *',
    [keyId, at],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** A key by id, its row locked (a roll takes a key once). */
export async function findKeyForUpdate(db: Queryable, keyId: ApiKeyId): Promise<ApiKeyRecord | null> {
  const { rows } = await db.query<KeyRow>('SELECT * FROM api_keys WHERE id = $1 FOR UPDATE', [keyId]);
  return rows[0] ? toRecord(rows[0]) : null;
}
