import type { AccountId, UserId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';

export interface SignInRecord {
  userId: UserId;
  accountId: AccountId;
  /** The password was given, the TOTP code not yet. */
  secondFactorPending: boolean;
}

/** Stores a signed-in browser by the hash of its cookie's value. */
export async function insertSignIn(
  db: Queryable,
  signIn: {
    idHash: string;
    userId: UserId;
    accountId: AccountId;
    expiresAt: Date;
    address: string | null;
    secondFactorPending?: boolean;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO sign_in_sessions (id_hash, user_id, account_id, expires_at, address, second_factor_pending) VALUES ($1, $2, $3, $4, $5, $6)`,
    [signIn.idHash, signIn.userId, signIn.accountId, signIn.expiresAt, signIn.address, signIn.secondFactorPending ?? false],
  );
}

/**
 * The signed-in browser behind a cookie, when it has not expired nor been idle longer than `idleSeconds`;
 * seeing it moves its idle clock.
 */
export async function touchSignIn(db: Queryable, idHash: string, idleSeconds: number): Promise<SignInRecord | null> {
  const { rows } = await db.query<{ user_id: UserId; account_id: AccountId; second_factor_pending: boolean }>(
    `UPDATE sign_in_sessions SET last_seen_at = now()
      WHERE id_hash = $1 AND expires_at > now() AND last_seen_at > now() - make_interval(secs => $2)
      RETURNING user_id, account_id, second_factor_pending`,
    [idHash, idleSeconds],
  );
  return rows[0]
    ? { userId: rows[0].user_id, accountId: rows[0].account_id, secondFactorPending: rows[0].second_factor_pending }
    : null;
}

export async function deleteSignIn(db: Queryable, idHash: string): Promise<void> {
  await db.query('DELETE FROM sign_in_sessions WHERE id_hash = $1', [idHash]);
}

/** Ends every signed-in browser of a user; returns how many there were. */
export async function deleteSignInsOf(db: Queryable, userId: UserId): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sign_in_sessions WHERE user_id = $1', [userId]);
  return rowCount ?? 0;
}
