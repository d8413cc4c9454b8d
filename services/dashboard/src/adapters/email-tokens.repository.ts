import type { UserId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';

export type EmailTokenPurpose = 'confirm_email' | 'reset_password' | 'sign_in';

export async function insertEmailToken(
  db: Queryable,
  token: { tokenHash: string; userId: UserId; purpose: EmailTokenPurpose; expiresAt: Date },
): Promise<void> {
  await db.query('INSERT INTO email_tokens (token_hash, user_id, purpose, expires_at) VALUES ($1, $2, $3, $4)', [
    token.tokenHash,
    token.userId,
    token.purpose,
    token.expiresAt,
  ]);
}

/** Uses a live token once: the user it names, or null when it is unknown, expired or used (also by a racing use). */
export async function consumeEmailToken(db: Queryable, tokenHash: string, purpose: EmailTokenPurpose): Promise<UserId | null> {
  const { rows } = await db.query<{ user_id: UserId }>(
    `UPDATE email_tokens SET used_at = now()
      WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING user_id`,
    [tokenHash, purpose],
  );
  return rows[0]?.user_id ?? null;
}

/** Whether a token is live, without using it (the confirmation page's GET, which mail scanners also fetch). */
export async function isEmailTokenLive(db: Queryable, tokenHash: string, purpose: EmailTokenPurpose): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM email_tokens WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()',
    [tokenHash, purpose],
  );
  return (rowCount ?? 0) > 0;
}
