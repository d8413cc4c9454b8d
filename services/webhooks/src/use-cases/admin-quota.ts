import type { AccountId } from '@idv/contracts';
import { AppError, withTransaction, type Pool } from '@idv/kit';
import { takeAdminQuota } from '../adapters/quota.repository';

/** Test and redeliver together: 10 per minute per account (spec "Limits"). */
export const ADMIN_QUOTA = { limit: 10, windowMs: 60_000 } as const;

/**
 * Takes one use of the account's test-and-redeliver quota, or throws 429 `rate_limited` with
 * Retry-After. Committed on its own, before the operation: a refused or failed call still counts.
 */
export async function takeAdminQuotaOrRefuse(pool: Pool, accountId: AccountId): Promise<void> {
  const quota = await withTransaction(pool, (tx) => takeAdminQuota(tx, accountId, ADMIN_QUOTA.limit, ADMIN_QUOTA.windowMs));
  if (!quota.allowed) {
    throw new AppError(
      'rate_limited',
      'Test and redeliver are limited to 10 per minute per account; retry after the Retry-After delay.',
      { headers: { 'Retry-After': String(quota.retryAfterSeconds) } },
    );
  }
}
