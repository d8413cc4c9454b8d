import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Link tokens, binding secrets and CSRF tokens: drawn at random, kept as hashes, compared in constant time. */

export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
export const randomToken = () => randomBytes(32).toString('base64url');

/** Whether a presented secret hashes to the stored hash. */
export function sameSecret(presented: string | undefined, expectedHash: string): boolean {
  if (!presented) return false;
  const a = Buffer.from(sha256(presented), 'hex');
  const b = Buffer.from(expectedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function sameToken(presented: string | undefined, expected: string): boolean {
  if (!presented) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
