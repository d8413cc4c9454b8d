import type { AccountId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';

/** The verdict events an integrator must hear about to act on a session. */
export const VERDICT_EVENTS = ['verification_session.approved', 'verification_session.rejected'] as const;

/**
 * The account's active endpoints subscribed to both verdict events, and whether one of them answered a
 * test event with 2xx (a `succeeded` delivery of a `test` event in the log).
 */
export async function webhookReadiness(
  db: Queryable,
  accountId: AccountId,
): Promise<{ verdictEndpoints: number; answeredTest: boolean }> {
  const { rows } = await db.query<{ verdict_endpoints: number; answered_test: boolean }>(
    `SELECT count(*)::int AS verdict_endpoints,
            coalesce(bool_or(EXISTS (
              SELECT 1 FROM deliveries d
               WHERE d.account_id = e.account_id AND d.endpoint_id = e.id AND d.event_type = 'test' AND d.status = 'succeeded'
            )), false) AS answered_test
       FROM endpoints e
      WHERE e.account_id = $1 AND e.status = 'active' AND e.deleted_at IS NULL AND e.events @> $2::text[]`,
    [accountId, [...VERDICT_EVENTS]],
  );
  return { verdictEndpoints: rows[0]?.verdict_endpoints ?? 0, answeredTest: rows[0]?.answered_test ?? false };
}
