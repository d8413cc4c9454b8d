import { createHash } from 'node:crypto';
import type { AccountId, ApiKeyId, Mode } from '@idv/contracts';

/** Records are kept at least this long (the issue asks for 24 hours). */
export const IDEMPOTENCY_RETENTION_HOURS = 24;

export interface IdempotencyScope {
  accountId: AccountId;
  mode: Mode;
  apiKeyId: ApiKeyId;
  key: string;
}

/** JSON with object keys sorted at every depth: the same payload always serialises the same way. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 of the validated request (defaults applied), so key order and omitted defaults do not matter. */
export function requestHash(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload)).digest('hex');
}

/**
 * The 64-bit advisory lock id of a scope (first 8 bytes of a SHA-256, signed, as PostgreSQL wants).
 * A collision between two scopes could only make one answer "in flight" for the other's duration.
 */
export function idempotencyLockKey(scope: IdempotencyScope): string {
  const digest = createHash('sha256').update([scope.accountId, scope.mode, scope.apiKeyId, scope.key].join('\n')).digest();
  return digest.readBigInt64BE(0).toString();
}

export interface IdempotencyRecord {
  requestHash: string;
  responseStatus: number;
  /** The response body exactly as it was first sent. */
  responseBody: string;
}

export type IdempotencyDecision = { kind: 'replay'; status: number; body: string } | { kind: 'mismatch' };

/** What to do with a request whose key already has a (completed) record. */
export function decide(record: IdempotencyRecord, hash: string): IdempotencyDecision {
  if (record.requestHash !== hash) return { kind: 'mismatch' };
  return { kind: 'replay', status: record.responseStatus, body: record.responseBody };
}
