import type { UserId } from '@idv/contracts';
import { withTransaction } from '@idv/kit';
import { appendAudit } from '../adapters/audit.repository';
import { replaceRecoveryCodes, useRecoveryCode } from '../adapters/operators.repository';
import { deleteSignIn } from '../adapters/sign-in.repository';
import { acceptUserTotpStep, findUser, proposeUserTotpSecret, setRequireTotp } from '../adapters/users.repository';
import { can } from '../domain/roles';
import { hashSecret } from '../domain/secrets';
import { acceptedStep, newRecoveryCodes, newTotpSecret, normalRecoveryCode, otpauthUri } from '../domain/totp';
import type { DashboardPorts } from './ports';
import { openSignIn, type Viewer } from './sign-in';

/** A user's TOTP secret is sealed for that user: a sealed secret moved to another row does not open. */
const sealFor = (userId: UserId) => `user-totp:${userId}`;

/** A secret proposed for enrolment (replaced at each view until a code confirms one), and its QR's URI. */
export async function userEnrolment(ports: DashboardPorts, viewer: Viewer): Promise<{ secret: string; uri: string } | null> {
  const user = await findUser(ports.pool, viewer.userId);
  if (!user || user.totpEnrolledAt) return null;
  const secret = newTotpSecret();
  await proposeUserTotpSecret(ports.pool, user.id, ports.keyring.sealText(secret, sealFor(user.id)));
  return { secret, uri: otpauthUri(secret, user.email) };
}

export type UserSecondFactorResult = { kind: 'accepted'; cookieValue: string; recoveryCodes?: string[] } | { kind: 'wrong_code' };

/**
 * A TOTP code (or, once enrolled, a recovery code): at enrolment it confirms the proposed secret and
 * makes ten recovery codes shown once; at sign-in it completes the sign-in. Either way the sign-in is
 * replaced by a new one, with a new cookie value (the privilege changed).
 */
export async function giveUserSecondFactor(
  ports: DashboardPorts,
  viewer: Viewer,
  code: string,
  address: string,
): Promise<UserSecondFactorResult> {
  const result = await withTransaction(ports.pool, async (tx) => {
    const user = await findUser(tx, viewer.userId, true);
    if (!user?.totpSecretSealed) return null;
    const secret = ports.keyring.openText(user.totpSecretSealed, sealFor(user.id));
    const step = acceptedStep(secret, code, user.totpLastStep);
    let recoveryCodes: string[] | undefined;
    if (step !== null) {
      await acceptUserTotpStep(tx, user.id, step);
      if (!user.totpEnrolledAt) {
        recoveryCodes = newRecoveryCodes();
        await replaceRecoveryCodes(
          tx,
          user.id,
          recoveryCodes.map((c) => hashSecret(normalRecoveryCode(c))),
        );
      }
    } else if (!user.totpEnrolledAt || !(await useRecoveryCode(tx, user.id, hashSecret(normalRecoveryCode(code))))) {
      return null;
    }
    await deleteSignIn(tx, viewer.signInHash);
    const cookieValue = await openSignIn(ports, tx, { userId: user.id, accountId: viewer.accountId, address });
    await appendAudit(tx, {
      accountId: viewer.accountId,
      actorId: user.id,
      action: recoveryCodes ? 'user.totp_enrolled' : step === null ? 'user.signed_in_with_recovery_code' : 'user.signed_in',
      address,
    });
    return { cookieValue, ...(recoveryCodes ? { recoveryCodes } : {}) };
  });
  if (!result) {
    await appendAudit(ports.pool, {
      accountId: viewer.accountId,
      actorId: viewer.userId,
      action: 'user.second_factor_failed',
      address,
    });
    return { kind: 'wrong_code' };
  }
  return { kind: 'accepted', ...result };
}

/** The owner's setting: two-factor required of every member of the account. */
export async function requireTwoFactor(ports: DashboardPorts, viewer: Viewer, required: boolean, address: string) {
  if (!can(viewer.role, 'account.settings')) return { kind: 'forbidden' as const };
  await setRequireTotp(ports.pool, viewer.accountId, required, viewer.userId);
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: required ? 'account.totp_required' : 'account.totp_optional',
    address,
  });
  return { kind: 'saved' as const };
}
