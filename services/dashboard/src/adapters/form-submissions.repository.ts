import type { UserId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';

/** Claims a form's nonce for its one effect: false when a copy of the form claimed it first. */
export async function claimFormNonce(db: Queryable, nonce: string, userId: UserId): Promise<boolean> {
  const { rowCount } = await db.query('INSERT INTO form_submissions (nonce, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    nonce,
    userId,
  ]);
  return (rowCount ?? 0) > 0;
}
