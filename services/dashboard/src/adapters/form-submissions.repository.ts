import type { Queryable } from '@idv/kit';

/** The shape of the nonces the forms carry (`newSecret`): anything else claims nothing. */
const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * Claims a form's nonce for its one effect: false when a copy of the form claimed it first, or when the
 * nonce is not one a form carries.
 */
export async function claimFormNonce(db: Queryable, nonce: string, actorId: string): Promise<boolean> {
  if (!NONCE_PATTERN.test(nonce)) return false;
  const { rowCount } = await db.query('INSERT INTO form_submissions (nonce, actor_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    nonce,
    actorId,
  ]);
  return (rowCount ?? 0) > 0;
}
