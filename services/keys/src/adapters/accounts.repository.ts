import type { AccountId, AccountStatus } from '@idv/contracts';
import type { Queryable } from '@idv/kit';
import type { AccountRecord } from '../domain/accounts';

interface AccountRow {
  id: AccountId;
  name: string;
  email: string;
  status: AccountStatus;
  created_at: Date;
  updated_at: Date;
}

function toRecord(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertAccount(
  db: Queryable,
  accountId: AccountId,
  account: { name: string; email: string },
): Promise<AccountRecord> {
  const { rows } = await db.query<AccountRow>('INSERT INTO accounts (id, name, email) VALUES ($1, $2, $3) RETURNING *', [
    accountId,
    account.name,
    account.email,
  ]);
  return toRecord(rows[0]!);
}

export async function findAccount(db: Queryable, accountId: AccountId): Promise<AccountRecord | null> {
  const { rows } = await db.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [accountId]);
  return rows[0] ? toRecord(rows[0]) : null;
}

export async function setAccountStatus(
  db: Queryable,
  accountId: AccountId,
  status: AccountStatus,
): Promise<AccountRecord | null> {
  const { rows } = await db.query<AccountRow>('UPDATE accounts SET status = $2, updated_at = now() WHERE id = $1 RETURNING *', [
    accountId,
    status,
  ]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Accounts oldest first, of one status or all; one more than `limit` tells whether more exist. */
export async function listAccounts(db: Queryable, status: AccountStatus | undefined, limit: number): Promise<AccountRecord[]> {
  const { rows } = await db.query<AccountRow>(
    'SELECT * FROM accounts WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at, id LIMIT $2',
    [status ?? null, limit],
  );
  return rows.map(toRecord);
}
