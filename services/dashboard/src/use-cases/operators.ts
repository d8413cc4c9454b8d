import type { AccountId, AccountStatus, UserId } from '@idv/contracts';
import { withTransaction } from '@idv/kit';
import { appendAudit } from '../adapters/audit.repository';
import { claimFormNonce } from '../adapters/form-submissions.repository';
import * as operators from '../adapters/operators.repository';
import { passwordProblem } from '../domain/passwords';
import { hashSecret, looksLikeSecret, newSecret } from '../domain/secrets';
import { acceptedStep, newRecoveryCodes, newTotpSecret, normalRecoveryCode, otpauthUri } from '../domain/totp';
import { THROTTLES, type DashboardPorts } from './ports';

/** The TOTP secret is sealed for its operator: a sealed secret moved to another row does not open. */
const sealFor = (operatorId: UserId) => `operator-totp:${operatorId}`;

export type CreateOperatorResult =
  | { kind: 'created'; operator: { id: UserId; email: string; name: string } }
  | { kind: 'email_taken' }
  | { kind: 'weak_password'; problem: string };

/** An operator, as the CLI creates one: a password now, the TOTP enrolment at the first sign-in. */
export async function createOperator(
  ports: DashboardPorts,
  input: { email: string; name: string; password: string },
): Promise<CreateOperatorResult> {
  const weak = passwordProblem(input.password, input.email, ports.commonPasswords);
  if (weak) return { kind: 'weak_password', problem: weak };
  const created = await operators.insertOperator(ports.pool, {
    email: input.email,
    name: input.name,
    passwordHash: await ports.hasher.hash(input.password),
  });
  if (!created) return { kind: 'email_taken' };
  await appendAudit(ports.pool, {
    accountId: null,
    actorId: null,
    action: 'operator.created',
    target: created.id,
    address: null,
  });
  return { kind: 'created', operator: created };
}

export type OperatorSignInResult =
  | { kind: 'password_accepted'; cookieValue: string; enrolled: boolean }
  | { kind: 'wrong_credentials' }
  | { kind: 'throttled'; retryAfterSeconds: number };

/** The first factor: e-mail and password, throttled like the integrators' sign-in. The console waits for the code. */
export async function operatorPassword(
  ports: DashboardPorts,
  input: { email: string; password: string },
  address: string,
): Promise<OperatorSignInResult> {
  const perAddress = await ports.throttle.take(THROTTLES.signIn, address);
  if (!perAddress.allowed) return { kind: 'throttled', retryAfterSeconds: perAddress.retryAfterSeconds };
  const emailKey = `operator:${hashSecret(input.email.trim().toLowerCase())}`;
  const perEmail = await ports.throttle.peek(THROTTLES.failedPassword, emailKey);
  if (!perEmail.allowed) return { kind: 'throttled', retryAfterSeconds: perEmail.retryAfterSeconds };
  const operator = await operators.findOperatorByEmail(ports.pool, input.email);
  const matches = operator
    ? await ports.hasher.verify(operator.passwordHash, input.password)
    : (await ports.hasher.burn(input.password), false);
  if (!operator || !matches) {
    await ports.throttle.take(THROTTLES.failedPassword, emailKey);
    return { kind: 'wrong_credentials' };
  }
  const cookieValue = newSecret();
  await operators.insertOperatorSignIn(ports.pool, {
    idHash: hashSecret(cookieValue),
    operatorId: operator.id,
    expiresAt: new Date(Date.now() + ports.signIn.operatorMaxSeconds * 1000),
    address,
    secondFactor: false,
  });
  return { kind: 'password_accepted', cookieValue, enrolled: operator.totpEnrolledAt !== null };
}

export interface OperatorViewer {
  operatorId: UserId;
  email: string;
  name: string;
  secondFactor: boolean;
  enrolled: boolean;
  signInHash: string;
}

export async function operatorOf(ports: DashboardPorts, cookieValue: string | undefined): Promise<OperatorViewer | null> {
  if (!looksLikeSecret(cookieValue)) return null;
  const signInHash = hashSecret(cookieValue);
  const signedIn = await operators.touchOperatorSignIn(ports.pool, signInHash, ports.signIn.operatorIdleSeconds);
  if (!signedIn) return null;
  const operator = await operators.findOperator(ports.pool, signedIn.operatorId);
  if (!operator) return null;
  return {
    operatorId: operator.id,
    email: operator.email,
    name: operator.name,
    secondFactor: signedIn.secondFactor,
    enrolled: operator.totpEnrolledAt !== null,
    signInHash,
  };
}

/** The secret to enrol, proposed once per page view until a code confirms one; its URI for the QR. */
export async function enrolmentOf(ports: DashboardPorts, viewer: OperatorViewer): Promise<{ secret: string; uri: string }> {
  const secret = newTotpSecret();
  await operators.proposeTotpSecret(ports.pool, viewer.operatorId, ports.keyring.sealText(secret, sealFor(viewer.operatorId)));
  return { secret, uri: otpauthUri(secret, viewer.email) };
}

export type SecondFactorResult = { kind: 'accepted'; cookieValue: string; recoveryCodes?: string[] } | { kind: 'wrong_code' };

/**
 * The second factor: a TOTP code of the operator's secret (at enrolment, the proposed one), or a recovery
 * code. Accepted, the sign-in is replaced by a new one that has both factors (the cookie's value changes
 * with the privilege). At enrolment, ten recovery codes are made and returned once.
 */
export async function giveSecondFactor(
  ports: DashboardPorts,
  viewer: OperatorViewer,
  code: string,
  address: string,
): Promise<SecondFactorResult> {
  const result = await withTransaction(ports.pool, async (tx) => {
    const operator = await operators.findOperator(tx, viewer.operatorId, true);
    if (!operator?.totpSecretSealed) return null;
    const secret = ports.keyring.openText(operator.totpSecretSealed, sealFor(operator.id));
    const step = acceptedStep(secret, code, operator.totpLastStep);
    let recoveryCodes: string[] | undefined;
    if (step !== null) {
      await operators.acceptTotpStep(tx, operator.id, step);
      if (!operator.totpEnrolledAt) {
        recoveryCodes = newRecoveryCodes();
        await operators.replaceRecoveryCodes(
          tx,
          operator.id,
          recoveryCodes.map((c) => hashSecret(normalRecoveryCode(c))),
        );
      }
    } else if (
      !operator.totpEnrolledAt ||
      !(await operators.useRecoveryCode(tx, operator.id, hashSecret(normalRecoveryCode(code))))
    ) {
      return null;
    }
    const cookieValue = newSecret();
    await operators.deleteOperatorSignIn(tx, viewer.signInHash);
    await operators.insertOperatorSignIn(tx, {
      idHash: hashSecret(cookieValue),
      operatorId: operator.id,
      expiresAt: new Date(Date.now() + ports.signIn.operatorMaxSeconds * 1000),
      address,
      secondFactor: true,
    });
    await appendAudit(tx, {
      accountId: null,
      actorId: operator.id,
      action: recoveryCodes
        ? 'operator.totp_enrolled'
        : step === null
          ? 'operator.signed_in_with_recovery_code'
          : 'operator.signed_in',
      address,
    });
    return { cookieValue, ...(recoveryCodes ? { recoveryCodes } : {}) };
  });
  if (!result) {
    await appendAudit(ports.pool, {
      accountId: null,
      actorId: viewer.operatorId,
      action: 'operator.second_factor_failed',
      address,
    });
    return { kind: 'wrong_code' };
  }
  return { kind: 'accepted', ...result };
}

export async function operatorSignOut(ports: DashboardPorts, viewer: OperatorViewer): Promise<void> {
  await operators.deleteOperatorSignIn(ports.pool, viewer.signInHash);
}

/** The console's list: accounts of a status, oldest first, with their age. */
export async function accountsFor(ports: DashboardPorts, status: AccountStatus) {
  const listed = await ports.platform.call('listAccounts', {}, undefined, { status, limit: '100' });
  return { accounts: listed.data, hasMore: listed.has_more };
}

/**
 * One account as an operator sees it: its details, owners, keys (never a secret), balance, projects with
 * their published versions, and this month's usage (sessions per mode and status, tokens debited).
 */
export async function accountDetail(ports: DashboardPorts, accountId: AccountId, now = new Date()) {
  const month = now.toISOString().slice(0, 7);
  const [account, keys, balance, owners, projects, usage] = await Promise.all([
    ports.platform.call('getAccount', { id: accountId }),
    ports.platform.call('listApiKeys', { id: accountId }),
    ports.platform.call('getBalance', { id: accountId }),
    operators.ownersOf(ports.pool, accountId),
    ports.platform.call('listProjects', { id: accountId }),
    ports.platform.call('getAccountUsage', { id: accountId }, undefined, { month }),
  ]);
  return { account, keys: keys.data, balance: balance.balance, owners, projects: projects.data, usage };
}

/**
 * Approves or suspends, with the operator's reason: the keys service changes the status and tells every
 * gateway replica (its event); the owners are told by e-mail; the audit log keeps who, why and from where.
 */
export async function decideAccount(
  ports: DashboardPorts,
  viewer: OperatorViewer,
  accountId: AccountId,
  decision: 'approve' | 'suspend',
  reason: string,
  address: string,
): Promise<void> {
  const account = await ports.platform.call(decision === 'approve' ? 'approveAccount' : 'suspendAccount', { id: accountId });
  await appendAudit(ports.pool, {
    accountId,
    actorId: viewer.operatorId,
    action: decision === 'approve' ? 'account.approved' : 'account.suspended',
    target: reason,
    address,
  });
  for (const owner of await operators.ownersOf(ports.pool, accountId)) {
    try {
      await ports.mailer.sendAccountDecision(owner.email, owner.name, account.status, reason, 'es');
    } catch (error) {
      ports.logger.error({ err: error, account_id: accountId }, 'account decision mail not sent');
    }
  }
}

/** Credits tokens with a reason, once per form (the form's nonce). */
export async function creditTokens(
  ports: DashboardPorts,
  viewer: OperatorViewer,
  accountId: AccountId,
  input: { tokens: number; reason: string; nonce: string },
  address: string,
): Promise<{ kind: 'credited'; balance: number } | { kind: 'duplicate' }> {
  if (!(await claimFormNonce(ports.pool, input.nonce, viewer.operatorId))) {
    return { kind: 'duplicate' };
  }
  const balance = await ports.platform.call('creditBalance', { id: accountId }, { tokens: input.tokens, reason: input.reason });
  await appendAudit(ports.pool, {
    accountId,
    actorId: viewer.operatorId,
    action: 'account.credited',
    target: `${input.tokens}: ${input.reason}`,
    address,
  });
  return { kind: 'credited', balance: balance.balance };
}
