import { newId, type AccountId, type UserId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';
import type { Role } from '../domain/roles';

export interface UserRecord {
  id: UserId;
  email: string;
  name: string;
  passwordHash: string;
  emailConfirmedAt: Date | null;
  totpSecretSealed: string | null;
  totpEnrolledAt: Date | null;
  totpLastStep: number | null;
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
  totp_secret_sealed: string | null;
  totp_enrolled_at: Date | null;
  totp_last_step: string | null;
}

const toUser = (row: UserRow): UserRecord => ({
  id: row.id,
  email: row.email,
  name: row.name,
  passwordHash: row.password_hash,
  emailConfirmedAt: row.email_confirmed_at,
  totpSecretSealed: row.totp_secret_sealed,
  totpEnrolledAt: row.totp_enrolled_at,
  totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step),
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

export async function findUser(db: Queryable, userId: UserId, lock = false): Promise<UserRecord | null> {
  const { rows } = await db.query<UserRow>(`SELECT * FROM users WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [userId]);
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

/** Every account the user belongs to, oldest membership first. */
export async function membershipsOf(db: Queryable, userId: UserId): Promise<MembershipRecord[]> {
  const { rows } = await db.query<{ account_id: AccountId; role: Role }>(
    'SELECT account_id, role FROM memberships WHERE user_id = $1 ORDER BY created_at, account_id',
    [userId],
  );
  return rows.map((row) => ({ accountId: row.account_id, role: row.role }));
}

/** The user's membership of `accountId`, or without it their first (the account a new sign-in opens). */
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

export async function proposeUserTotpSecret(db: Queryable, userId: UserId, sealed: string): Promise<void> {
  await db.query('UPDATE users SET totp_secret_sealed = $2 WHERE id = $1 AND totp_enrolled_at IS NULL', [userId, sealed]);
}

export async function acceptUserTotpStep(db: Queryable, userId: UserId, step: number): Promise<void> {
  await db.query('UPDATE users SET totp_last_step = $2, totp_enrolled_at = coalesce(totp_enrolled_at, now()) WHERE id = $1', [
    userId,
    step,
  ]);
}

export async function requiresTotp(db: Queryable, accountId: AccountId): Promise<boolean> {
  const { rows } = await db.query<{ require_totp: boolean }>('SELECT require_totp FROM account_settings WHERE account_id = $1', [
    accountId,
  ]);
  return rows[0]?.require_totp ?? false;
}

export async function setRequireTotp(db: Queryable, accountId: AccountId, required: boolean, by: UserId): Promise<void> {
  await db.query(
    `INSERT INTO account_settings (account_id, require_totp, updated_by) VALUES ($1, $2, $3)
     ON CONFLICT (account_id) DO UPDATE SET require_totp = EXCLUDED.require_totp, updated_by = EXCLUDED.updated_by, updated_at = now()`,
    [accountId, required, by],
  );
}

/** In one query: whether the user enrolled TOTP, and whether the account requires it of every member. */
export async function twoFactorStateOf(
  db: Queryable,
  userId: UserId,
  accountId: AccountId,
): Promise<{ enrolled: boolean; required: boolean }> {
  const { rows } = await db.query<{ enrolled: boolean; required: boolean }>(
    `SELECT u.totp_enrolled_at IS NOT NULL AS enrolled, coalesce(s.require_totp, false) AS required
       FROM users u LEFT JOIN account_settings s ON s.account_id = $2 WHERE u.id = $1`,
    [userId, accountId],
  );
  return rows[0] ?? { enrolled: false, required: false };
}
