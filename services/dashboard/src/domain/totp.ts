import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;
const ISSUER = 'IDV';

export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

const totpOf = (secret: string, label: string) =>
  new TOTP({ issuer: ISSUER, label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS });

/** The `otpauth://` URI an authenticator app scans from the QR. */
export const otpauthUri = (secret: string, label: string): string => totpOf(secret, label).toString();

/**
 * The time step a code was accepted for, or null: the code of this step or of one step either side
 * (clocks drift), and never a step at or before `lastStep` (a code works once, even within its 30 s).
 */
export function acceptedStep(secret: string, code: string, lastStep: number | null, now = Date.now()): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpOf(secret, 'x').validate({ token, timestamp: now, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  return lastStep !== null && step <= lastStep ? null : step;
}

/** Ten recovery codes of 10 letters and digits each, grouped for reading: `k7q2m-x9p4r`. */
export function newRecoveryCodes(count = 10): string[] {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  return Array.from({ length: count }, () => {
    const letters = Array.from({ length: 10 }, () => alphabet[randomInt(alphabet.length)]).join('');
    return `${letters.slice(0, 5)}-${letters.slice(5)}`;
  });
}

export const normalRecoveryCode = (code: string) =>
  code
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '');
