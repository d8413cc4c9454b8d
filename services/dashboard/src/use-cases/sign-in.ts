import type { AccountId, UserId } from '@idv/contracts';
import { withTransaction, type Queryable } from '@idv/kit';
import { appendAudit } from '../adapters/audit.repository';
import { deleteSignIn, deleteSignInsOf, insertSignIn, touchSignIn } from '../adapters/sign-in.repository';
import { findMembership, findUserByEmail, twoFactorStateOf } from '../adapters/users.repository';
import type { SignInInput } from '../domain/forms';
import type { Role } from '../domain/roles';
import { hashSecret, looksLikeSecret, newSecret } from '../domain/secrets';
import { THROTTLES, type DashboardPorts } from './ports';

/**
 * A new signed-in browser: a fresh cookie value (never one the browser brought: no fixation), its hash
 * stored with the sign-in's limits. Every way in (password, code, e-mailed link, invitation) goes through it.
 */
export async function openSignIn(
  ports: Pick<DashboardPorts, 'signIn'>,
  db: Queryable,
  signIn: { userId: UserId; accountId: AccountId; address: string; secondFactorPending?: boolean },
): Promise<string> {
  const cookieValue = newSecret();
  await insertSignIn(db, {
    idHash: hashSecret(cookieValue),
    userId: signIn.userId,
    accountId: signIn.accountId,
    expiresAt: new Date(Date.now() + ports.signIn.maxSeconds * 1000),
    address: signIn.address,
    secondFactorPending: signIn.secondFactorPending ?? false,
  });
  return cookieValue;
}

export type SignInResult =
  | { kind: 'signed_in'; cookieValue: string; userId: UserId; secondFactorPending: boolean }
  | { kind: 'wrong_credentials' }
  | { kind: 'throttled'; retryAfterSeconds: number };

/** The throttle's key of an e-mail address: its hash, so Redis never holds the address. */
const emailKey = (email: string) => hashSecret(email.trim().toLowerCase());

/**
 * Signs a person in with e-mail and password. Each address is throttled, and each e-mail's failed
 * passwords are (whoever sends them, so spreading a guess over many addresses does not help); a correct
 * password is refused only while that e-mail's failures are spent. The answer never tells whether the
 * e-mail exists, in words or in time. A new sign-in always gets a new cookie value (no fixation).
 */
export async function signIn(ports: DashboardPorts, input: SignInInput, address: string): Promise<SignInResult> {
  const perAddress = await ports.throttle.take(THROTTLES.signIn, address);
  if (!perAddress.allowed) return { kind: 'throttled', retryAfterSeconds: perAddress.retryAfterSeconds };
  const perEmail = await ports.throttle.peek(THROTTLES.failedPassword, emailKey(input.email));
  if (!perEmail.allowed) return { kind: 'throttled', retryAfterSeconds: perEmail.retryAfterSeconds };

  const user = await findUserByEmail(ports.pool, input.email);
  const matches = user
    ? await ports.hasher.verify(user.passwordHash, input.password)
    : (await ports.hasher.burn(input.password), false);
  const membership = user && matches ? await findMembership(ports.pool, user.id) : null;
  if (!user || !membership) {
    await ports.throttle.take(THROTTLES.failedPassword, emailKey(input.email));
    if (user) await appendAudit(ports.pool, { accountId: null, actorId: user.id, action: 'user.sign_in_failed', address });
    return { kind: 'wrong_credentials' };
  }
  // With TOTP enrolled, the password opens only the code's page.
  const secondFactorPending = user.totpEnrolledAt !== null;
  const cookieValue = await withTransaction(ports.pool, async (tx) => {
    const opened = await openSignIn(ports, tx, {
      userId: user.id,
      accountId: membership.accountId,
      address,
      secondFactorPending,
    });
    await appendAudit(tx, {
      accountId: membership.accountId,
      actorId: user.id,
      action: secondFactorPending ? 'user.password_accepted' : 'user.signed_in',
      address,
    });
    return opened;
  });
  return { kind: 'signed_in', cookieValue, userId: user.id, secondFactorPending };
}

export interface Viewer {
  userId: UserId;
  accountId: AccountId;
  role: Role;
  /** The hash of the sign-in cookie: the CSRF tokens are bound to it. */
  signInHash: string;
  /** The password was given, the TOTP code not yet: only the code's page opens. */
  secondFactorPending: boolean;
  /** TOTP enrolled by this person. */
  totpEnrolled: boolean;
  /** The account requires TOTP of every member and this person has none yet: only the enrolment opens. */
  mustEnrolTotp: boolean;
}

/** The person behind a sign-in cookie, or null (unknown, expired, idle too long, or the membership gone). */
export async function viewerOf(ports: DashboardPorts, cookieValue: string | undefined): Promise<Viewer | null> {
  if (!looksLikeSecret(cookieValue)) return null;
  const signInHash = hashSecret(cookieValue);
  const signedIn = await touchSignIn(ports.pool, signInHash, ports.signIn.idleSeconds);
  if (!signedIn) return null;
  const [membership, twoFactor] = await Promise.all([
    findMembership(ports.pool, signedIn.userId, signedIn.accountId),
    twoFactorStateOf(ports.pool, signedIn.userId, signedIn.accountId),
  ]);
  if (!membership) return null;
  return {
    userId: signedIn.userId,
    accountId: signedIn.accountId,
    role: membership.role,
    signInHash,
    secondFactorPending: signedIn.secondFactorPending,
    totpEnrolled: twoFactor.enrolled,
    mustEnrolTotp: twoFactor.required && !twoFactor.enrolled,
  };
}

export async function signOut(ports: DashboardPorts, viewer: Viewer, address: string): Promise<void> {
  await deleteSignIn(ports.pool, viewer.signInHash);
  await appendAudit(ports.pool, { accountId: viewer.accountId, actorId: viewer.userId, action: 'user.signed_out', address });
}

/** Ends every browser signed in as this person, this one included. */
export async function signOutEverywhere(ports: DashboardPorts, viewer: Viewer, address: string): Promise<void> {
  await withTransaction(ports.pool, async (tx) => {
    const ended = await deleteSignInsOf(tx, viewer.userId);
    await appendAudit(tx, {
      accountId: viewer.accountId,
      actorId: viewer.userId,
      action: 'user.signed_out_everywhere',
      target: String(ended),
      address,
    });
  });
}
