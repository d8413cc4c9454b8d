import type { Account, AccountStatus, ApiKey, Mode, ResolvedKey, Scope } from '@idv/contracts';
import type { Queryable } from '@idv/kit';

interface AccountRow {
  id: string;
  name: string;
  email: string;
  status: AccountStatus;
  created_at: Date;
  updated_at: Date;
}

interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  mode: Mode;
  scopes: Scope[];
  secret_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    object: 'account',
    name: row.name,
    email: row.email,
    status: row.status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    object: 'api_key',
    account_id: row.account_id,
    name: row.name,
    mode: row.mode,
    scopes: row.scopes,
    created_at: row.created_at.toISOString(),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}

export async function insertAccount(db: Queryable, account: { id: string; name: string; email: string }): Promise<Account> {
  const { rows } = await db.query<AccountRow>('INSERT INTO accounts (id, name, email) VALUES ($1, $2, $3) RETURNING *', [
    account.id,
    account.name,
    account.email,
  ]);
  return toAccount(rows[0]!);
}

export async function findAccount(db: Queryable, id: string): Promise<Account | null> {
  const { rows } = await db.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]);
  return rows[0] ? toAccount(rows[0]) : null;
}

export async function setAccountStatus(db: Queryable, id: string, status: AccountStatus): Promise<Account | null> {
  const { rows } = await db.query<AccountRow>('UPDATE accounts SET status = $2, updated_at = now() WHERE id = $1 RETURNING *', [
    id,
    status,
  ]);
  return rows[0] ? toAccount(rows[0]) : null;
}

export async function insertKey(
  db: Queryable,
  key: { id: string; accountId: string; name: string; mode: Mode; scopes: Scope[]; secretHash: string },
): Promise<ApiKey> {
  const { rows } = await db.query<KeyRow>(
    `INSERT INTO api_keys (id, account_id, name, mode, scopes, secret_hash)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [key.id, key.accountId, key.name, key.mode, key.scopes, key.secretHash],
  );
  return toApiKey(rows[0]!);
}

export async function listKeys(db: Queryable, accountId: string): Promise<ApiKey[]> {
  const { rows } = await db.query<KeyRow>('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, id DESC', [
    accountId,
  ]);
  return rows.map(toApiKey);
}

/** Revokes once: a second revoke keeps the first revoked_at. Returns the key and its hash. */
export async function revokeKey(db: Queryable, id: string): Promise<{ key: ApiKey; secretHash: string } | null> {
  const { rows } = await db.query<KeyRow>(
    'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING *',
    [id],
  );
  return rows[0] ? { key: toApiKey(rows[0]), secretHash: rows[0].secret_hash } : null;
}

export async function resolveKey(db: Queryable, secretHash: string): Promise<ResolvedKey | null> {
  const { rows } = await db.query<KeyRow & { account_status: AccountStatus }>(
    `SELECT k.*, a.status AS account_status
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.secret_hash = $1`,
    [secretHash],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    key_id: row.id,
    account_id: row.account_id,
    account_status: row.account_status,
    mode: row.mode,
    scopes: row.scopes,
    revoked: row.revoked_at !== null,
    secret_hash: row.secret_hash,
  };
}

/** last_used_at is kept to the minute: one write per key per minute at most, off the hot path. */
export async function touchKey(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}
