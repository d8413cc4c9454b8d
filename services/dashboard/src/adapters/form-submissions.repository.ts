import type { Queryable } from '@idv/kit';

/** Claims a form's nonce for its one effect: false when a copy of the form claimed it first. */
export async function claimFormNonce(db: Queryable, nonce: string, actorId: string): Promise<boolean> {
  const { rowCount } = await db.query('INSERT INTO form_submissions (nonce, actor_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    nonce,
    actorId,
  ]);
  return (rowCount ?? 0) > 0;
}
