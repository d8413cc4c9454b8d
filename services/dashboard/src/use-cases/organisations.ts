import type { Account, AccountId } from '@idv/contracts';
import { withTransaction, type Queryable } from '@idv/kit';
import { appendAudit } from '../adapters/audit.repository';
import { claimFormNonce } from '../adapters/form-submissions.repository';
import { deleteSignIn } from '../adapters/sign-in.repository';
import { findUser, insertMembership, membershipsOf } from '../adapters/users.repository';
import type { Role } from '../domain/roles';
import type { DashboardPorts } from './ports';
import { openSignIn, type Viewer } from './sign-in';

export interface Organisation {
  account: Account;
  role: Role;
  current: boolean;
}

/** The accounts a person belongs to, each with their role there; the one this browser works in marked. */
export async function organisationsOf(ports: DashboardPorts, viewer: Viewer): Promise<Organisation[]> {
  const memberships = await membershipsOf(ports.pool, viewer.userId);
  const accounts = await Promise.all(
    memberships.map((membership) => ports.platform.call('getAccount', { id: membership.accountId })),
  );
  return memberships.map((membership, index) => ({
    account: accounts[index]!,
    role: membership.role,
    current: membership.accountId === viewer.accountId,
  }));
}

/**
 * Moves this browser to another of the person's accounts: a new sign-in (new cookie value: the privileges
 * change with the account, so the session id does too) replaces this one, which ends. Another person's
 * account, or one the person left, is not found.
 */
export async function switchOrganisation(
  ports: DashboardPorts,
  viewer: Viewer,
  accountId: string,
  address: string,
): Promise<{ kind: 'switched'; cookieValue: string } | { kind: 'not_found' }> {
  const memberships = await membershipsOf(ports.pool, viewer.userId);
  const target = memberships.find((membership) => membership.accountId === accountId);
  if (!target) return { kind: 'not_found' };
  const cookieValue = await withTransaction(ports.pool, (tx) =>
    moveSignIn(ports, tx, viewer, target.accountId, 'user.switched_account', address),
  );
  return { kind: 'switched', cookieValue };
}

/**
 * Another organisation for a signed-in person: a new account, `pending` as at sign-up, of which they are
 * the owner; this browser then works in it. A form sent twice (its nonce) creates one.
 */
export async function createOrganisation(
  ports: DashboardPorts,
  viewer: Viewer,
  input: { name: string; nonce: string },
  address: string,
): Promise<{ kind: 'created'; accountId: AccountId; cookieValue: string } | { kind: 'duplicate' }> {
  if (!(await claimFormNonce(ports.pool, input.nonce, viewer.userId))) {
    return { kind: 'duplicate' };
  }
  const user = await findUser(ports.pool, viewer.userId);
  if (!user) return { kind: 'duplicate' };
  const account = await ports.platform.call('createAccount', {}, { name: input.name, email: user.email });
  const cookieValue = await withTransaction(ports.pool, async (tx) => {
    await insertMembership(tx, viewer.userId, account.id, 'owner');
    return moveSignIn(ports, tx, viewer, account.id, 'account.created', address);
  });
  return { kind: 'created', accountId: account.id, cookieValue };
}

/** This browser's sign-in replaced by a new one in `accountId` (a new cookie value), and why in the audit log. */
export async function moveSignIn(
  ports: DashboardPorts,
  tx: Queryable,
  viewer: Viewer,
  accountId: AccountId,
  action: string,
  address: string,
): Promise<string> {
  await deleteSignIn(tx, viewer.signInHash);
  const cookieValue = await openSignIn(ports, tx, { userId: viewer.userId, accountId, address });
  await appendAudit(tx, { accountId, actorId: viewer.userId, action, target: accountId, address });
  return cookieValue;
}
