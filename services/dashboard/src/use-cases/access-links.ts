import { withTransaction } from '@idv/kit';
import { appendAudit } from '../adapters/audit.repository';
import {
  consumeEmailToken,
  insertEmailToken,
  isEmailTokenLive,
  type EmailTokenPurpose,
} from '../adapters/email-tokens.repository';
import { deleteSignInsOf } from '../adapters/sign-in.repository';
import { findMembership, findUser, findUserByEmail, setPasswordHash } from '../adapters/users.repository';
import type { Locale } from '../domain/i18n';
import { passwordProblem, type PasswordProblem } from '../domain/passwords';
import { hashSecret, looksLikeSecret, newSecret } from '../domain/secrets';
import { THROTTLES, type DashboardPorts } from './ports';
import { openSignIn } from './sign-in';

const SIGN_IN_LINK_MINUTES = 15;
const RESET_LINK_MINUTES = 30;

/**
 * "Cannot get in": one e-mail with a sign-in link (15 minutes) and a password reset link (30 minutes),
 * each single-use. The answer is the same whether the e-mail has an account (no enumeration); the
 * throttles are per address and per e-mail. The sign-in link is what keeps a held password from locking
 * the real owner out: it does not go through the failed-password bucket.
 */
export async function sendAccessLinks(
  ports: DashboardPorts,
  email: string,
  address: string,
  locale: Locale,
): Promise<'sent' | 'throttled'> {
  const perAddress = await ports.throttle.take(THROTTLES.signUp, address);
  if (!perAddress.allowed) return 'throttled';
  const perEmail = await ports.throttle.take(THROTTLES.emailLinks, hashSecret(email.trim().toLowerCase()));
  if (!perEmail.allowed) return 'sent'; // said the same way: the inbox already has links
  const user = await findUserByEmail(ports.pool, email);
  if (!user) return 'sent';
  const signIn = newSecret();
  const reset = newSecret();
  const now = Date.now();
  await withTransaction(ports.pool, async (tx) => {
    await insertEmailToken(tx, {
      tokenHash: hashSecret(signIn),
      userId: user.id,
      purpose: 'sign_in',
      expiresAt: new Date(now + SIGN_IN_LINK_MINUTES * 60_000),
    });
    await insertEmailToken(tx, {
      tokenHash: hashSecret(reset),
      userId: user.id,
      purpose: 'reset_password',
      expiresAt: new Date(now + RESET_LINK_MINUTES * 60_000),
    });
    await appendAudit(tx, { accountId: null, actorId: user.id, action: 'user.access_links_sent', address });
  });
  const base = ports.baseUrl.replace(/\/+$/, '');
  try {
    await ports.mailer.sendAccessLinks(
      user.email,
      user.name,
      { signIn: `${base}/sign-in-link?token=${signIn}`, reset: `${base}/reset-password?token=${reset}` },
      locale,
    );
  } catch (error) {
    ports.logger.error({ err: error, user_id: user.id }, 'access links not sent');
  }
  return 'sent';
}

export async function linkLive(ports: DashboardPorts, token: unknown, purpose: EmailTokenPurpose): Promise<boolean> {
  return looksLikeSecret(token) && isEmailTokenLive(ports.pool, hashSecret(token), purpose);
}

/** Uses a sign-in link once: a new sign-in (a new cookie value), as a password would give. */
export async function signInWithLink(
  ports: DashboardPorts,
  token: unknown,
  address: string,
): Promise<{ cookieValue: string; secondFactorPending: boolean } | null> {
  if (!looksLikeSecret(token)) return null;
  return withTransaction(ports.pool, async (tx) => {
    const userId = await consumeEmailToken(tx, hashSecret(token), 'sign_in');
    if (!userId) return null;
    const membership = await findMembership(tx, userId);
    const user = await findUser(tx, userId);
    if (!membership || !user) return null;
    // The link stands for the password, never for the TOTP code.
    const cookieValue = await openSignIn(ports, tx, {
      userId,
      accountId: membership.accountId,
      address,
      secondFactorPending: user.totpEnrolledAt !== null,
    });
    await appendAudit(tx, { accountId: membership.accountId, actorId: userId, action: 'user.signed_in_with_link', address });
    return { cookieValue, secondFactorPending: user.totpEnrolledAt !== null };
  });
}

export type ResetResult = { kind: 'changed' } | { kind: 'invalid_link' } | { kind: 'weak_password'; problem: PasswordProblem };

/** A new password by a reset link, used once; every sign-in of the person ends (this browser signs in again). */
export async function resetPassword(
  ports: DashboardPorts,
  token: unknown,
  password: string,
  address: string,
): Promise<ResetResult> {
  if (!looksLikeSecret(token)) return { kind: 'invalid_link' };
  const tokenHash = hashSecret(token);
  const live = await ports.pool.query<{ email: string }>(
    `SELECT u.email FROM email_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_hash = $1 AND t.purpose = 'reset_password' AND t.used_at IS NULL AND t.expires_at > now()`,
    [tokenHash],
  );
  const email = live.rows[0]?.email;
  if (!email) return { kind: 'invalid_link' };
  const weak = passwordProblem(password, email, ports.commonPasswords);
  if (weak) return { kind: 'weak_password', problem: weak };
  const passwordHash = await ports.hasher.hash(password);
  return withTransaction(ports.pool, async (tx) => {
    const userId = await consumeEmailToken(tx, tokenHash, 'reset_password');
    if (!userId) return { kind: 'invalid_link' as const };
    await setPasswordHash(tx, userId, passwordHash);
    const ended = await deleteSignInsOf(tx, userId);
    await appendAudit(tx, { accountId: null, actorId: userId, action: 'user.password_reset', target: String(ended), address });
    return { kind: 'changed' as const };
  });
}
