import { createHash, randomBytes } from 'node:crypto';

/**
 * A secret for a cookie or an e-mailed link: 256 random bits, URL-safe, behind `dt_` so the kit's logger
 * redacts it wherever it appears (a confirmation link's URL in a request log). Only its hash is stored.
 */
export const newSecret = () => `dt_${randomBytes(32).toString('base64url')}`;

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** The shape of a secret this service issued (anything else is not looked up). */
export const looksLikeSecret = (value: unknown): value is string =>
  typeof value === 'string' && /^dt_[A-Za-z0-9_-]{43}$/.test(value);
