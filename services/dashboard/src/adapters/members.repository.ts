import type { AccountId, UserId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';
import type { Role } from '../domain/roles';

export interface MemberRecord {
  userId: UserId;
  email: string;
  name: string;
  role: Role;
  since: Date;
}

/**
 * The account's members, oldest first. With `lock` (in a transaction) their memberships stay locked until it ends:
 * two owners removing or demoting each other at once are decided one after the other, and one owner stays.
 */
export async function membersOf(db: Queryable, accountId: AccountId, options: { lock?: boolean } = {}): Promise<MemberRecord[]> {
  const { rows } = await db.query<{ user_id: UserId; email: string; name: string; role: Role; created_at: Date }>(
    `SELECT m.user_id, u.email, u.name, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.account_id = $1 ORDER BY m.created_at ${options.lock ? 'FOR UPDATE OF m' : ''}`,
    [accountId],
  );
  return rows.map((row) => ({ userId: row.user_id, email: row.email, name: row.name, role: row.role, since: row.created_at }));
}

export interface InvitationRecord {
  email: string;
  role: Role;
  expiresAt: Date;
}

export async function pendingInvitations(db: Queryable, accountId: AccountId): Promise<InvitationRecord[]> {
  const { rows } = await db.query<{ email: string; role: Role; expires_at: Date }>(
    `SELECT email, role, expires_at FROM invitations
      WHERE account_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() ORDER BY created_at DESC`,
    [accountId],
  );
  return rows.map((row) => ({ email: row.email, role: row.role, expiresAt: row.expires_at }));
}

export async function insertInvitation(
  db: Queryable,
  invitation: { tokenHash: string; accountId: AccountId; email: string; role: Role; invitedBy: UserId; expiresAt: Date },
): Promise<void> {
  await db.query(
    'INSERT INTO invitations (token_hash, account_id, email, role, invited_by, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [invitation.tokenHash, invitation.accountId, invitation.email, invitation.role, invitation.invitedBy, invitation.expiresAt],
  );
}

/** A live invitation by its link (not used, not revoked, not expired). */
export async function liveInvitation(
  db: Queryable,
  tokenHash: string,
): Promise<{ accountId: AccountId; email: string; role: Role } | null> {
  const { rows } = await db.query<{ account_id: AccountId; email: string; role: Role }>(
    `SELECT account_id, email, role FROM invitations
      WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`,
    [tokenHash],
  );
  return rows[0] ? { accountId: rows[0].account_id, email: rows[0].email, role: rows[0].role } : null;
}

/** Uses an invitation once: false when a racing use took it first. */
export async function acceptInvitation(db: Queryable, tokenHash: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE invitations SET accepted_at = now()
      WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`,
    [tokenHash],
  );
  return (rowCount ?? 0) > 0;
}

/** Removes a member (never the account's last owner: the caller checks). */
export async function removeMembership(db: Queryable, userId: UserId, accountId: AccountId): Promise<void> {
  await db.query('DELETE FROM memberships WHERE user_id = $1 AND account_id = $2', [userId, accountId]);
  await db.query('DELETE FROM sign_in_sessions WHERE user_id = $1 AND account_id = $2', [userId, accountId]);
}

/** A member's role in the account (read again by every request of theirs: it applies at once). */
export async function setMemberRole(db: Queryable, userId: UserId, accountId: AccountId, role: Role): Promise<void> {
  await db.query('UPDATE memberships SET role = $3 WHERE user_id = $1 AND account_id = $2', [userId, accountId, role]);
}
