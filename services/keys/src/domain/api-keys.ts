import { createHash, randomBytes } from 'node:crypto';
import { SCOPES, type AccountId, type AccountStatus, type ApiKeyId, type Mode, type Scope } from '@idv/contracts';

/** An API key as the keys service keeps it: the SHA-256 of its secret, never the secret. */
export interface ApiKeyRecord {
  id: ApiKeyId;
  accountId: AccountId;
  name: string;
  mode: Mode;
  scopes: Scope[];
  secretHash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** A revocation scheduled by a roll. */
  revokesAt: Date | null;
}

/** Refused from now on: revoked, or past its scheduled revocation. */
export const isRevoked = (key: Pick<ApiKeyRecord, 'revokedAt' | 'revokesAt'>, now = Date.now()): boolean =>
  key.revokedAt !== null || (key.revokesAt !== null && key.revokesAt.getTime() <= now);

/** A key found by its secret's hash, with what the gateway needs of its account. */
export interface ResolvedKeyRecord {
  key: ApiKeyRecord;
  accountStatus: AccountStatus;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry about 256 bits: at least 32 random bytes, as the issue asks. */
const SECRET_LENGTH = 43;

/** Unbiased base62: bytes of 248 and above are dropped instead of folded with a modulo. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function generateSecret(mode: Mode): string {
  return `sk_${mode}_${randomBase62(SECRET_LENGTH)}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function modeOfSecret(secret: string): Mode | null {
  if (secret.startsWith('sk_test_')) return 'test';
  if (secret.startsWith('sk_live_')) return 'live';
  return null;
}

/** Scopes of a new key: all five when omitted (spec "Authentication" 7), in canonical order. */
export function normalizeScopes(requested: readonly Scope[] | undefined): Scope[] {
  const wanted = new Set(requested ?? SCOPES);
  return SCOPES.filter((scope) => wanted.has(scope));
}
