import { createHash } from 'node:crypto';
import type { Mode } from '@idv/contracts';

export interface PresentedKey {
  secretHash: string;
  mode: Mode;
}

const BEARER = /^Bearer ([A-Za-z0-9_]{1,200})$/;

/** Reads `Authorization: Bearer sk_(test|live)_…`; anything else is treated as no key at all. */
export function readPresentedKey(authorization: string | undefined): PresentedKey | null {
  if (!authorization) return null;
  const secret = BEARER.exec(authorization)?.[1];
  if (!secret) return null;
  const mode: Mode | null = secret.startsWith('sk_test_') ? 'test' : secret.startsWith('sk_live_') ? 'live' : null;
  if (!mode) return null;
  return { secretHash: createHash('sha256').update(secret, 'utf8').digest('hex'), mode };
}
