import { createHash } from 'node:crypto';
import type { Mode } from '@idv/contracts';

export interface PresentedKey {
  secretHash: string;
  mode: Mode;
}

/** RFC 7235: the scheme is case-insensitive and one or more spaces follow it. */
const BEARER = /^bearer +([A-Za-z0-9_]{1,200}) *$/i;

/** Reads `Authorization: Bearer sk_(test|live)_…`; anything else is treated as no key at all. */
export function readPresentedKey(authorization: string | undefined): PresentedKey | null {
  if (!authorization) return null;
  const secret = BEARER.exec(authorization)?.[1];
  if (!secret) return null;
  const mode: Mode | null = secret.startsWith('sk_test_') ? 'test' : secret.startsWith('sk_live_') ? 'live' : null;
  if (!mode) return null;
  return { secretHash: createHash('sha256').update(secret, 'utf8').digest('hex'), mode };
}

/**
 * Node keeps only the first of repeated `Authorization` headers; two of them are ambiguous (which key
 * is meant?) and are refused rather than resolved first-wins.
 */
export function authorizationCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'authorization') count++;
  return count;
}
