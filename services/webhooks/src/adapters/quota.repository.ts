import type { AccountId } from '@idv/contracts';
import type { PoolClient } from '@idv/kit';
import { msInterval } from './sql';

/**
 * Sliding window of `limit` per `windowMs` per account, shared by test and redeliver. Every attempt
 * is recorded, rejected ones included (spec "Limits"). Serialised per account by an advisory lock
 * held until the caller's transaction ends: `tx` must be inside one.
 */
export async function takeAdminQuota(
  tx: PoolClient,
  accountId: AccountId,
  limit: number,
  windowMs: number,
): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 4242))`, [accountId]);
  await tx.query(`DELETE FROM admin_requests WHERE account_id = $1 AND at <= clock_timestamp() - ${msInterval('$2')}`, [
    accountId,
    windowMs,
  ]);
  await tx.query(`INSERT INTO admin_requests (account_id) VALUES ($1)`, [accountId]);
  const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin_requests WHERE account_id = $1`, [
    accountId,
  ]);
  const n = rows[0]?.n ?? 0;
  if (n <= limit) return { allowed: true, retryAfterSeconds: 0 };
  // The next attempt passes once enough entries left the window for it to be the limit-th.
  const { rows: oldest } = await tx.query<{ wait_ms: number }>(
    `SELECT GREATEST(0, extract(epoch FROM (at + ${msInterval('$2')} - clock_timestamp())) * 1000)::float8 AS wait_ms
     FROM admin_requests WHERE account_id = $1 ORDER BY at OFFSET $3 LIMIT 1`,
    [accountId, windowMs, n - limit],
  );
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest[0]?.wait_ms ?? windowMs) / 1000)) };
}
