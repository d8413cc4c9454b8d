import { createHash, randomBytes } from 'node:crypto';

/** A secret for a cookie or an e-mailed link: 256 random bits, URL-safe. Only its hash is ever stored. */
export const newSecret = () => randomBytes(32).toString('base64url');

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** The shape of a secret this service issued (anything else is not looked up). */
export const looksLikeSecret = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
