import { InternalCallError, type AccountReadiness, type AccountId, type UserId } from '@idv/contracts';
import { withTransaction } from '@idv/kit';
import { appendAudit } from '../adapters/audit.repository';
import { consumeEmailToken, insertEmailToken, isEmailTokenLive } from '../adapters/email-tokens.repository';
import { findUser, insertMembership, insertUser, markEmailConfirmed } from '../adapters/users.repository';
import type { FieldErrors, SignUpInput } from '../domain/forms';
import type { Locale } from '../domain/i18n';
import { passwordProblem } from '../domain/passwords';
import { hashSecret, looksLikeSecret, newSecret } from '../domain/secrets';
import { THROTTLES, type DashboardPorts } from './ports';

const CONFIRMATION_HOURS = 24;

export type SignUpResult =
  | { kind: 'created'; userId: UserId; accountId: AccountId }
  | { kind: 'invalid'; errors: FieldErrors }
  | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * A new organisation: its account (pending, at the keys service), its owner, and the e-mailed link that
 * confirms the owner's address. The e-mail's uniqueness is decided by the users table inside the
 * transaction, so two submissions at once create one account.
 */
export async function signUp(ports: DashboardPorts, input: SignUpInput, address: string, locale: Locale): Promise<SignUpResult> {
  const allowed = await ports.throttle.take(THROTTLES.signUp, address);
  if (!allowed.allowed) return { kind: 'throttled', retryAfterSeconds: allowed.retryAfterSeconds };
  const passwordHash = await ports.hasher.hash(input.password);
  const created = await withTransaction(ports.pool, async (tx) => {
    const user = await insertUser(tx, { email: input.email, name: input.name, passwordHash });
    if (!user) return null;
    const account = await ports.platform.call('createAccount', {}, { name: input.organisation, email: input.email });
    await insertMembership(tx, user.id, account.id, 'owner');
    const token = await issueConfirmation(ports, tx, user.id);
    await appendAudit(tx, { accountId: account.id, actorId: user.id, action: 'account.signed_up', target: account.id, address });
    return { user, accountId: account.id, token };
  });
  if (!created) return { kind: 'invalid', errors: { email: 'email_taken' } };
  await sendConfirmation(ports, created.user, created.token, locale);
  return { kind: 'created', userId: created.user.id, accountId: created.accountId };
}

async function issueConfirmation(
  ports: DashboardPorts,
  db: Parameters<typeof insertEmailToken>[0],
  userId: UserId,
): Promise<string> {
  const token = newSecret();
  await insertEmailToken(db, {
    tokenHash: hashSecret(token),
    userId,
    purpose: 'confirm_email',
    expiresAt: new Date(Date.now() + CONFIRMATION_HOURS * 3600_000),
  });
  return token;
}

/** Sent after the commit; a mail that fails is logged and can be asked for again from the home page. */
async function sendConfirmation(
  ports: DashboardPorts,
  user: { id: UserId; email: string; name: string },
  token: string,
  locale: Locale,
) {
  const link = `${ports.baseUrl.replace(/\/+$/, '')}/confirm-email?token=${token}`;
  try {
    await ports.mailer.sendConfirmation(user.email, user.name, link, CONFIRMATION_HOURS, locale);
  } catch (error) {
    ports.logger.error({ err: error, user_id: user.id }, 'confirmation mail not sent');
  }
}

export async function resendConfirmation(
  ports: DashboardPorts,
  userId: UserId,
  address: string,
  locale: Locale,
): Promise<'sent' | 'throttled'> {
  const allowed = await ports.throttle.take(THROTTLES.signUp, address);
  if (!allowed.allowed) return 'throttled';
  const user = await findUser(ports.pool, userId);
  if (!user || user.emailConfirmedAt) return 'sent';
  const token = await issueConfirmation(ports, ports.pool, user.id);
  await sendConfirmation(ports, user, token, locale);
  return 'sent';
}

/** Whether an e-mailed link is still usable (the page before the button). */
export async function confirmationLinkLive(ports: DashboardPorts, token: unknown): Promise<boolean> {
  return looksLikeSecret(token) && isEmailTokenLive(ports.pool, hashSecret(token), 'confirm_email');
}

/** Uses the link once; false when it is unknown, expired or used already. */
export async function confirmEmail(ports: DashboardPorts, token: unknown, address: string): Promise<boolean> {
  if (!looksLikeSecret(token)) return false;
  return withTransaction(ports.pool, async (tx) => {
    const userId = await consumeEmailToken(tx, hashSecret(token), 'confirm_email');
    if (!userId) return false;
    await markEmailConfirmed(tx, userId);
    await appendAudit(tx, { accountId: null, actorId: userId, action: 'user.email_confirmed', target: userId, address });
    return true;
  });
}

/** What the home page shows: the account as the keys service has it, and whether the viewer confirmed their e-mail. */
export async function homeOf(ports: DashboardPorts, viewer: { userId: UserId; accountId: AccountId }) {
  const accountCall = ports.platform.call('getAccountReadiness', { id: viewer.accountId });
  const [readiness, user, checklist] = await Promise.all([
    accountCall,
    findUser(ports.pool, viewer.userId),
    // The home page still opens when a service behind the checklist does not answer.
    goLiveChecklist(ports, viewer.accountId, accountCall).catch((error: unknown) => {
      ports.logger.warn({ err: error, account_id: viewer.accountId }, 'go-live checklist unavailable');
      return null;
    }),
  ]);
  return { account: readiness.account, emailConfirmed: !!user?.emailConfirmedAt, checklist };
}

export type AddOwnerResult =
  | { kind: 'created'; user: { id: UserId; email: string; name: string }; accountId: AccountId }
  | { kind: 'no_account' }
  | { kind: 'email_taken' }
  | { kind: 'weak_password'; problem: string };

/**
 * An owner added by an operator to an account that exists (the demo's): the e-mail is taken as
 * confirmed, since the operator typed it; the password follows the sign-up's rules.
 */
export async function addOwner(
  ports: DashboardPorts,
  accountId: AccountId,
  input: { email: string; name: string; password: string },
): Promise<AddOwnerResult> {
  const weak = passwordProblem(input.password, input.email, ports.commonPasswords);
  if (weak) return { kind: 'weak_password', problem: weak };
  try {
    await ports.platform.call('getAccount', { id: accountId });
  } catch (error) {
    if (error instanceof InternalCallError && error.status === 404) return { kind: 'no_account' };
    throw error;
  }
  const passwordHash = await ports.hasher.hash(input.password);
  return withTransaction(ports.pool, async (tx) => {
    const user = await insertUser(tx, { email: input.email, name: input.name, passwordHash });
    if (!user) return { kind: 'email_taken' as const };
    await insertMembership(tx, user.id, accountId, 'owner');
    await markEmailConfirmed(tx, user.id);
    await appendAudit(tx, {
      accountId,
      actorId: null,
      action: 'account.owner_added_by_operator',
      target: user.id,
      address: null,
    });
    return { kind: 'created' as const, user, accountId };
  });
}

export interface ChecklistItem {
  id: 'account_active' | 'live_config' | 'live_key' | 'balance' | 'webhook';
  done: boolean;
  /** Where it is done, when the dashboard does it. */
  href?: string;
}

/**
 * What an account still needs before live traffic, computed from the services' real state: approved,
 * a live configuration published, a live key that works, tokens, and a webhook endpoint subscribed to
 * the verdict events that answered a test event with 2xx.
 */
export async function goLiveChecklist(
  ports: DashboardPorts,
  accountId: AccountId,
  accountCall: Promise<AccountReadiness>,
): Promise<ChecklistItem[]> {
  // One call per service that knows a part, all at once: the home page waits for the slowest service,
  // not a chain, and each service answers its part in one round trip (bench/dashboard: five calls made
  // the home page the slowest one).
  const [keys, flows, webhooks] = await Promise.all([
    accountCall,
    ports.platform.call('getFlowReadiness', { id: accountId }),
    ports.platform.call('getWebhookReadiness', { id: accountId }),
  ]);
  return [
    { id: 'account_active', done: keys.account.status === 'active' },
    { id: 'live_config', done: flows.live_projects > 0, href: '/projects' },
    { id: 'live_key', done: keys.live_keys > 0, href: '/keys' },
    { id: 'balance', done: flows.balance > 0 },
    { id: 'webhook', done: webhooks.verdict_endpoints > 0 && webhooks.verdict_endpoint_answered_test },
  ];
}
