import { newId, type AccountId, type UserId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';
import type { Role } from '../domain/roles';

export interface UserRecord {
  id: UserId;
  email: string;
  name: string;
  passwordHash: string;
  emailConfirmedAt: Date | null;
}

export interface MembershipRecord {
  accountId: AccountId;
  role: Role;
}

interface UserRow {
  id: UserId;
  email: string;
  name: string;
  password_hash: string;
  email_confirmed_at: Date | null;
}

const toUser = (row: UserRow): UserRecord => ({
  id: row.id,
  email: row.email,
  name: row.name,
  passwordHash: row.password_hash,
  emailConfirmedAt: row.email_confirmed_at,
});

/** Inserts a user; null when the e-mail address is taken (compared without case). */
export async function insertUser(
  db: Queryable,
  user: { email: string; name: string; passwordHash: string },
): Promise<UserRecord | null> {
  const { rows } = await db.query<UserRow>(
    `INSERT INTO users (id, email, name, password_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING *`,
    [newId('user'), user.email, user.name, user.passwordHash],
  );
  return rows[0] ? toUser(rows[0]) : null;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRecord | null> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
  return rows[0] ? toUser(rows[0]) : null;
}

export async function findUser(db: Queryable, userId: UserId): Promise<UserRecord | null> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [userId]);
  return rows[0] ? toUser(rows[0]) : null;
}

export async function markEmailConfirmed(db: Queryable, userId: UserId): Promise<void> {
  await db.query('UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now() WHERE id = $1', [
    userId,
  ]);
}

export async function insertMembership(db: Queryable, userId: UserId, accountId: AccountId, role: Role): Promise<void> {
  await db.query('INSERT INTO memberships (user_id, account_id, role) VALUES ($1, $2, $3)', [userId, accountId, role]);
}

/** The user's first membership (a person belongs to one account until invitations exist). */
export async function findMembership(db: Queryable, userId: UserId, accountId?: AccountId): Promise<MembershipRecord | null> {
  const { rows } = await db.query<{ account_id: AccountId; role: Role }>(
    `SELECT account_id, role FROM memberships WHERE user_id = $1 AND ($2::text IS NULL OR account_id = $2)
     ORDER BY created_at LIMIT 1`,
    [userId, accountId ?? null],
  );
  return rows[0] ? { accountId: rows[0].account_id, role: rows[0].role } : null;
}

export async function setPasswordHash(db: Queryable, userId: UserId, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [userId, passwordHash]);
}
