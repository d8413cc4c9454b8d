import type { AccountId, UserId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';

/** A notice asked for by an event; a copy of the event delivered again finds it (the consumer is idempotent). */
export async function receiveNotice(
  db: Queryable,
  notice: { eventId: string; accountId: AccountId; type: string },
): Promise<void> {
  await db.query('INSERT INTO owner_notices (event_id, account_id, type) VALUES ($1, $2, $3) ON CONFLICT (event_id) DO NOTHING', [
    notice.eventId,
    notice.accountId,
    notice.type,
  ]);
}

/**
 * The notice locked for the caller's transaction (two copies of one event handled at once wait for each
 * other), with the owners already mailed. Null when it is done.
 */
export async function lockPendingNotice(db: Queryable, eventId: string): Promise<{ mailed: Set<UserId> } | null> {
  const { rows } = await db.query<{ done: boolean }>(
    'SELECT done_at IS NOT NULL AS done FROM owner_notices WHERE event_id = $1 FOR UPDATE',
    [eventId],
  );
  if (!rows[0] || rows[0].done) return null;
  const mailed = await db.query<{ user_id: UserId }>('SELECT user_id FROM owner_notice_mails WHERE event_id = $1', [eventId]);
  return { mailed: new Set(mailed.rows.map((row) => row.user_id)) };
}

export async function recordNoticeMail(db: Queryable, eventId: string, userId: UserId): Promise<void> {
  await db.query('INSERT INTO owner_notice_mails (event_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [eventId, userId]);
}

export async function finishNotice(db: Queryable, eventId: string): Promise<void> {
  await db.query('UPDATE owner_notices SET done_at = now() WHERE event_id = $1', [eventId]);
}

export interface OwnerRecord {
  userId: UserId;
  email: string;
  name: string;
}

/** The account's owners (developers and viewers are not mailed). */
export async function ownersOf(db: Queryable, accountId: AccountId): Promise<OwnerRecord[]> {
  const { rows } = await db.query<{ user_id: UserId; email: string; name: string }>(
    `SELECT m.user_id, u.email, u.name FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.account_id = $1 AND m.role = 'owner' ORDER BY m.created_at`,
    [accountId],
  );
  return rows.map((row) => ({ userId: row.user_id, email: row.email, name: row.name }));
}
