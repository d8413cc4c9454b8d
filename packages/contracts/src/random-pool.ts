import { randomFillSync } from 'node:crypto';

/**
 * Cryptographic random bytes handed out from a 4 KiB pool, refilled in place with `randomFillSync` once used up:
 * asking the crypto API for a few bytes at a time costs microseconds per call (issue 43 measured 9–20 µs per
 * proxied request for the gateway's 12-byte nonce). Every byte is handed out once, so what a caller gets is
 * exactly as random as a `randomBytes` of its own. The ids (`fastUlid`) and the gateway's nonces share it.
 */
const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let offset = POOL_SIZE;

/** Reserves `count` unused bytes of the pool (refilled first when fewer are left) and returns where they start. */
function take(count: number): number {
  if (!Number.isInteger(count) || count < 1 || count > POOL_SIZE) throw new RangeError(`cannot take ${count} random bytes`);
  if (offset + count > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset += count;
  return start;
}

/** One random byte (0–255). */
export function pooledRandomByte(): number {
  return pool[take(1)]!;
}

/** `count` random bytes (at most 4,096), base64url-encoded: a nonce. */
export function pooledRandomBase64url(count: number): string {
  const start = take(count);
  return pool.toString('base64url', start, start + count);
}
