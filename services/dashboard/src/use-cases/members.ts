import { withTransaction } from '@idv/kit';
import { appendAudit } from '../adapters/audit.repository';
import * as members from '../adapters/members.repository';
import {
  findUser,
  findUserByEmail,
  insertMembership,
  insertUser,
  markEmailConfirmed,
  membershipsOf,
} from '../adapters/users.repository';
import type { FieldErrors } from '../domain/forms';
import type { Locale } from '../domain/i18n';
import { passwordProblem } from '../domain/passwords';
import { ROLES, can, type Role } from '../domain/roles';
import { hashSecret, looksLikeSecret, newSecret } from '../domain/secrets';
import { THROTTLES, type DashboardPorts } from './ports';
import { moveSignIn } from './organisations';
import { openSignIn, type Viewer } from './sign-in';

const INVITATION_DAYS = 7;

export const roleOf = (value: string | undefined): Role | null => ROLES.find((role) => role === value) ?? null;

export async function membersPage(ports: DashboardPorts, viewer: Viewer) {
  if (!can(viewer.role, 'members.manage')) return { kind: 'forbidden' as const };
  const [list, invitations] = await Promise.all([
    members.membersOf(ports.pool, viewer.accountId),
    members.pendingInvitations(ports.pool, viewer.accountId),
  ]);
  return { kind: 'members' as const, members: list, invitations };
}

export type InviteResult = { kind: 'invited' } | { kind: 'forbidden' } | { kind: 'already_member' } | { kind: 'throttled' };

/** An owner invites a person by e-mail with a role: a single-use link for 7 days, sent over SMTP. */
export async function invite(
  ports: DashboardPorts,
  viewer: Viewer,
  input: { email: string; role: Role },
  address: string,
  locale: Locale,
): Promise<InviteResult> {
  if (!can(viewer.role, 'members.manage')) return { kind: 'forbidden' };
  const allowed = await ports.throttle.take(THROTTLES.emailLinks, hashSecret(input.email.trim().toLowerCase()));
  if (!allowed.allowed) return { kind: 'throttled' };
  // A person with a user already joins with it (the link, opened signed in as them); a member already is told so.
  const existing = await findUserByEmail(ports.pool, input.email);
  if (existing && (await membershipsOf(ports.pool, existing.id)).some((m) => m.accountId === viewer.accountId)) {
    return { kind: 'already_member' };
  }
  const token = newSecret();
  await withTransaction(ports.pool, async (tx) => {
    await members.insertInvitation(tx, {
      tokenHash: hashSecret(token),
      accountId: viewer.accountId,
      email: input.email,
      role: input.role,
      invitedBy: viewer.userId,
      expiresAt: new Date(Date.now() + INVITATION_DAYS * 86_400_000),
    });
    await appendAudit(tx, {
      accountId: viewer.accountId,
      actorId: viewer.userId,
      action: 'member.invited',
      target: `${input.role}`,
      address,
    });
  });
  const account = await ports.platform.call('getAccount', { id: viewer.accountId });
  try {
    await ports.mailer.sendInvitation(
      input.email,
      account.name,
      input.role,
      `${ports.baseUrl.replace(/\/+$/, '')}/invitations/accept?token=${token}`,
      INVITATION_DAYS,
      locale,
    );
  } catch (error) {
    ports.logger.error({ err: error, account_id: viewer.accountId }, 'invitation mail not sent');
  }
  return { kind: 'invited' };
}

export async function invitationOf(ports: DashboardPorts, token: unknown) {
  if (!looksLikeSecret(token)) return null;
  return members.liveInvitation(ports.pool, hashSecret(token));
}

export type AcceptResult =
  { kind: 'accepted'; cookieValue: string } | { kind: 'invalid_link' } | { kind: 'invalid'; errors: FieldErrors };

/** The invited person chooses a name and a password; the link, used once, proves the e-mail. */
export async function acceptInvitationWith(
  ports: DashboardPorts,
  token: unknown,
  input: { name: string; password: string },
  address: string,
): Promise<AcceptResult> {
  const invitation = await invitationOf(ports, token);
  if (!invitation || typeof token !== 'string') return { kind: 'invalid_link' };
  const errors: FieldErrors = {};
  const name = input.name.trim();
  if (!name) errors.name = 'required';
  else if ([...name].length > 200) errors.name = 'too_long';
  const weak = passwordProblem(input.password, invitation.email, ports.commonPasswords);
  if (weak) errors.password = weak;
  if (Object.keys(errors).length) return { kind: 'invalid', errors };
  const passwordHash = await ports.hasher.hash(input.password);
  return withTransaction(ports.pool, async (tx) => {
    if (!(await members.acceptInvitation(tx, hashSecret(token)))) return { kind: 'invalid_link' as const };
    const user = await insertUser(tx, { email: invitation.email, name, passwordHash });
    if (!user) return { kind: 'invalid_link' as const };
    await markEmailConfirmed(tx, user.id);
    await insertMembership(tx, user.id, invitation.accountId, invitation.role);
    const cookieValue = await openSignIn(ports, tx, { userId: user.id, accountId: invitation.accountId, address });
    await appendAudit(tx, {
      accountId: invitation.accountId,
      actorId: user.id,
      action: 'member.joined',
      target: invitation.role,
      address,
    });
    return { kind: 'accepted' as const, cookieValue };
  });
}

export type JoinResult = { kind: 'joined'; cookieValue: string } | { kind: 'invalid_link' };

/**
 * A person who already has a user accepts an invitation to another account: signed in as the invited
 * address (the sign-in proved the password and second factor; the link proves the invitation), they become
 * a member with the invited role and this browser moves to that account (a new sign-in, as a switch). The
 * link is used once; anyone else signed in gets the invalid-link answer, never a hint of whose it is.
 */
export async function joinWithInvitation(
  ports: DashboardPorts,
  viewer: Viewer,
  token: unknown,
  address: string,
): Promise<JoinResult> {
  const invitation = await invitationOf(ports, token);
  if (!invitation || typeof token !== 'string') return { kind: 'invalid_link' };
  const user = await findUser(ports.pool, viewer.userId);
  if (!user || user.email.toLowerCase() !== invitation.email.toLowerCase()) return { kind: 'invalid_link' };
  return withTransaction(ports.pool, async (tx) => {
    if (!(await members.acceptInvitation(tx, hashSecret(token)))) return { kind: 'invalid_link' as const };
    const already = (await membershipsOf(tx, user.id)).some((m) => m.accountId === invitation.accountId);
    if (!already) await insertMembership(tx, user.id, invitation.accountId, invitation.role);
    const cookieValue = await moveSignIn(ports, tx, viewer, invitation.accountId, 'member.joined', address);
    return { kind: 'joined' as const, cookieValue };
  });
}

/** An owner removes a member; the account's last owner stays (an account always has one). */
export async function removeMember(ports: DashboardPorts, viewer: Viewer, userId: string, address: string) {
  if (!can(viewer.role, 'members.manage')) return { kind: 'forbidden' as const };
  return withTransaction(ports.pool, async (tx) => {
    const list = await members.membersOf(tx, viewer.accountId, { lock: true });
    const member = list.find((candidate) => candidate.userId === userId);
    if (!member) return { kind: 'not_found' as const };
    if (member.role === 'owner' && list.filter((candidate) => candidate.role === 'owner').length === 1)
      return { kind: 'last_owner' as const };
    await members.removeMembership(tx, member.userId, viewer.accountId);
    await appendAudit(tx, {
      accountId: viewer.accountId,
      actorId: viewer.userId,
      action: 'member.removed',
      target: member.userId,
      address,
    });
    return { kind: 'removed' as const };
  });
}

/** An owner changes a member's role (their own included); the account's last owner stays an owner. */
export async function changeRole(ports: DashboardPorts, viewer: Viewer, userId: string, role: Role, address: string) {
  if (!can(viewer.role, 'members.manage')) return { kind: 'forbidden' as const };
  return withTransaction(ports.pool, async (tx) => {
    const list = await members.membersOf(tx, viewer.accountId, { lock: true });
    const member = list.find((candidate) => candidate.userId === userId);
    if (!member) return { kind: 'not_found' as const };
    if (member.role === role) return { kind: 'unchanged' as const };
    if (member.role === 'owner' && list.filter((candidate) => candidate.role === 'owner').length === 1)
      return { kind: 'last_owner' as const };
    await members.setMemberRole(tx, member.userId, viewer.accountId, role);
    await appendAudit(tx, {
      accountId: viewer.accountId,
      actorId: viewer.userId,
      action: 'member.role_changed',
      target: `${member.userId}:${member.role}->${role}`,
      address,
    });
    return { kind: 'changed' as const, email: member.email };
  });
}
