import { newId, type UserId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';

export interface OperatorRecord {
  id: UserId;
  email: string;
  name: string;
  passwordHash: string;
  totpSecretSealed: string | null;
  totpEnrolledAt: Date | null;
  totpLastStep: number | null;
}

interface OperatorRow {
  id: UserId;
  email: string;
  name: string;
  password_hash: string;
  totp_secret_sealed: string | null;
  totp_enrolled_at: Date | null;
  totp_last_step: string | null;
}

const toOperator = (row: OperatorRow): OperatorRecord => ({
  id: row.id,
  email: row.email,
  name: row.name,
  passwordHash: row.password_hash,
  totpSecretSealed: row.totp_secret_sealed,
  totpEnrolledAt: row.totp_enrolled_at,
  totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step),
});

/** Inserts an operator; null when the e-mail is taken. */
export async function insertOperator(
  db: Queryable,
  operator: { email: string; name: string; passwordHash: string },
): Promise<OperatorRecord | null> {
  const { rows } = await db.query<OperatorRow>(
    `INSERT INTO operators (id, email, name, password_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING *`,
    [newId('user'), operator.email, operator.name, operator.passwordHash],
  );
  return rows[0] ? toOperator(rows[0]) : null;
}

export async function findOperatorByEmail(db: Queryable, email: string): Promise<OperatorRecord | null> {
  const { rows } = await db.query<OperatorRow>('SELECT * FROM operators WHERE lower(email) = lower($1)', [email]);
  return rows[0] ? toOperator(rows[0]) : null;
}

/** The operator, its row locked when `db` is a transaction (a TOTP step is taken once). */
export async function findOperator(db: Queryable, operatorId: UserId, lock = false): Promise<OperatorRecord | null> {
  const { rows } = await db.query<OperatorRow>(`SELECT * FROM operators WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [operatorId]);
  return rows[0] ? toOperator(rows[0]) : null;
}

/** Keeps a TOTP secret proposed for enrolment (replaced until one is confirmed). */
export async function proposeTotpSecret(db: Queryable, operatorId: UserId, sealed: string): Promise<void> {
  await db.query('UPDATE operators SET totp_secret_sealed = $2 WHERE id = $1 AND totp_enrolled_at IS NULL', [operatorId, sealed]);
}

export async function acceptTotpStep(db: Queryable, operatorId: UserId, step: number): Promise<void> {
  await db.query('UPDATE operators SET totp_last_step = $2, totp_enrolled_at = coalesce(totp_enrolled_at, now()) WHERE id = $1', [
    operatorId,
    step,
  ]);
}

export async function insertOperatorSignIn(
  db: Queryable,
  signIn: { idHash: string; operatorId: UserId; expiresAt: Date; address: string | null; secondFactor: boolean },
): Promise<void> {
  await db.query(
    `INSERT INTO operator_sign_ins (id_hash, operator_id, expires_at, address, second_factor_at)
     VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() END)`,
    [signIn.idHash, signIn.operatorId, signIn.expiresAt, signIn.address, signIn.secondFactor],
  );
}

export async function touchOperatorSignIn(
  db: Queryable,
  idHash: string,
  idleSeconds: number,
): Promise<{ operatorId: UserId; secondFactor: boolean } | null> {
  const { rows } = await db.query<{ operator_id: UserId; second_factor_at: Date | null }>(
    `UPDATE operator_sign_ins SET last_seen_at = now()
      WHERE id_hash = $1 AND expires_at > now() AND last_seen_at > now() - make_interval(secs => $2)
      RETURNING operator_id, second_factor_at`,
    [idHash, idleSeconds],
  );
  return rows[0] ? { operatorId: rows[0].operator_id, secondFactor: rows[0].second_factor_at !== null } : null;
}

export async function deleteOperatorSignIn(db: Queryable, idHash: string): Promise<void> {
  await db.query('DELETE FROM operator_sign_ins WHERE id_hash = $1', [idHash]);
}

export async function replaceRecoveryCodes(db: Queryable, ownerId: UserId, codeHashes: string[]): Promise<void> {
  await db.query('DELETE FROM recovery_codes WHERE owner_id = $1', [ownerId]);
  await db.query('INSERT INTO recovery_codes (owner_id, code_hash) SELECT $1, unnest($2::text[])', [ownerId, codeHashes]);
}

/** Uses a recovery code once; false when unknown or used. */
export async function useRecoveryCode(db: Queryable, ownerId: UserId, codeHash: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE recovery_codes SET used_at = now() WHERE owner_id = $1 AND code_hash = $2 AND used_at IS NULL',
    [ownerId, codeHash],
  );
  return (rowCount ?? 0) > 0;
}

/** The owners of an account, for the operator's view and the e-mails telling them of a decision. */
export async function ownersOf(db: Queryable, accountId: string): Promise<{ email: string; name: string }[]> {
  const { rows } = await db.query<{ email: string; name: string }>(
    `SELECT u.email, u.name FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.account_id = $1 AND m.role = 'owner' ORDER BY m.created_at`,
    [accountId],
  );
  return rows;
}
