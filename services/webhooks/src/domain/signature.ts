import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** The string that is signed: `<unix seconds>.<raw body>` (documented for receivers). */
export function signedPayload(timestamp: number, body: string): string {
  return `${timestamp}.${body}`;
}

export function sign(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(signedPayload(timestamp, body), 'utf8').digest('hex');
}

/** `t=<unix>,v1=<hex>[,v1=<hex>]`: one v1 per secret still valid (two during a rotation). */
export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${sign(secret, timestamp, body)}`)].join(',');
}
