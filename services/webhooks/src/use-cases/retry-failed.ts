import { newId, type AccountId, type WebhookEndpointId, type WebhookRetryId } from '@idv/contracts';
import { AppError, notFound, withTransaction, type Pool } from '@idv/kit';
import { findEndpoint } from '../adapters/endpoints.repository';
import { notifyDue } from '../adapters/messages.repository';
import {
  findRetryJob,
  hasRunningRetry,
  insertRetryJob,
  insertRetryMessages,
  listRetryJobs,
  lockEndpoint,
  retryCandidates,
  takeOverScheduled,
} from '../adapters/retries.repository';
import { retryIntervalMs, type RetryJobRecord } from '../domain/retry';

/** The latest retries an endpoint's page shows. */
export const RETRIES_LISTED = 5;

export interface RetryDeps {
  pool: Pool;
  /** Sends of one retry per second (WEBHOOKS_RETRY_PER_SECOND): the pace its receiver gets. */
  retryPerSecond: number;
  onQueued: () => void;
}

/**
 * Starts a retry of the endpoint's failed deliveries in [from, to): in one transaction, with the endpoint's
 * row locked (two starts at once, from any replica, run one after the other), refused while another retry of
 * the endpoint still sends (409), then the job and one `retry` message per event, due at the job's pace. The
 * events' automatic messages that wait for a later attempt are canceled: the retry sends them now. Not counted
 * against the test-and-redeliver quota: its pace is its limit.
 */
export async function startRetry(
  deps: RetryDeps,
  accountId: AccountId,
  endpointId: WebhookEndpointId,
  range: { from: Date; to: Date },
): Promise<RetryJobRecord> {
  const id = newId('webhookRetry');
  const intervalMs = retryIntervalMs(deps.retryPerSecond);
  await withTransaction(deps.pool, async (tx) => {
    const endpoint = await lockEndpoint(tx, accountId, endpointId);
    if (!endpoint) throw notFound('webhook endpoint');
    if (endpoint.status !== 'active') {
      throw new AppError('conflict', 'The endpoint is disabled: enable it before retrying its deliveries.');
    }
    if (await hasRunningRetry(tx, accountId, endpointId)) {
      throw new AppError('conflict', 'A retry of this endpoint is still sending; wait until it has finished.');
    }
    const candidates = await retryCandidates(tx, accountId, endpointId, range);
    await takeOverScheduled(
      tx,
      accountId,
      endpointId,
      candidates.map((candidate) => candidate.eventId),
    );
    await insertRetryJob(tx, accountId, { id, endpointId, from: range.from, to: range.to, intervalMs });
    const total = await insertRetryMessages(tx, accountId, { id, endpointId, intervalMs }, candidates);
    if (total > 0) await notifyDue(tx);
  });
  deps.onQueued();
  return (await findRetryJob(deps.pool, accountId, id))!;
}

/** The endpoint's latest retries (a deleted endpoint's still list). */
export async function listRetries(
  deps: { pool: Pool },
  accountId: AccountId,
  endpointId: WebhookEndpointId,
): Promise<RetryJobRecord[]> {
  if (!(await findEndpoint(deps.pool, accountId, endpointId, { includeDeleted: true }))) throw notFound('webhook endpoint');
  return listRetryJobs(deps.pool, accountId, endpointId, RETRIES_LISTED);
}

export async function getRetry(deps: { pool: Pool }, accountId: AccountId, id: WebhookRetryId): Promise<RetryJobRecord> {
  const job = await findRetryJob(deps.pool, accountId, id);
  if (!job) throw notFound('webhook retry');
  return job;
}
