import { InternalCallError, idPattern, type WebhookHealth, type WebhookRetry } from '@idv/contracts';
import { appendAudit } from '../adapters/audit.repository';
import { can } from '../domain/roles';
import type { DashboardPorts } from './ports';
import type { Viewer } from './sign-in';
import type { Refused, WebhooksOutcome } from './webhooks';

const ENDPOINT_ID = idPattern('webhookEndpoint');

/** The service's answer as an outcome: 404 not found, 409 refused for the endpoint's state, 422 a bad range. */
function outcomeOf(error: unknown): { kind: 'not_found' } | { kind: 'conflict' } | Refused {
  if (!(error instanceof InternalCallError)) throw error;
  if (error.status === 404) return { kind: 'not_found' };
  if (error.status === 409) return { kind: 'conflict' };
  if (error.status === 422) {
    const body = error.body as { detail?: string; errors?: { path?: string; message?: string }[] } | null;
    const first = body?.errors?.[0];
    return { kind: 'refused', field: first?.path ?? null, detail: first?.message ?? body?.detail ?? '' };
  }
  throw error;
}

/** The endpoint's latest retries of failed deliveries, newest first, with their progress (every role reads them). */
export async function latestRetries(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
): Promise<WebhooksOutcome<{ kind: 'retries'; retries: WebhookRetry[] }>> {
  if (!can(viewer.role, 'webhooks.read')) return { kind: 'forbidden' };
  if (!ENDPOINT_ID.test(endpointId)) return { kind: 'not_found' };
  try {
    const list = await ports.platform.call('listWebhookRetries', { id: viewer.accountId, endpoint_id: endpointId });
    return { kind: 'retries', retries: list.data };
  } catch (error) {
    const outcome = outcomeOf(error);
    if (outcome.kind === 'not_found') return outcome;
    throw error;
  }
}

/** The endpoint's attempts, success rate and p95 latency over 24 h and 7 days. */
export async function endpointHealth(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
): Promise<WebhooksOutcome<{ kind: 'health'; health: WebhookHealth }>> {
  if (!can(viewer.role, 'webhooks.read')) return { kind: 'forbidden' };
  if (!ENDPOINT_ID.test(endpointId)) return { kind: 'not_found' };
  try {
    const health = await ports.platform.call('getWebhookEndpointHealth', { id: viewer.accountId, endpoint_id: endpointId });
    return { kind: 'health', health };
  } catch (error) {
    const outcome = outcomeOf(error);
    if (outcome.kind === 'not_found') return outcome;
    throw error;
  }
}

/**
 * Retries every failed delivery of the endpoint in the range (instants), once per event at the service's pace;
 * audited as `webhook_endpoint.retry_started`. A retry still running, or a disabled endpoint: `conflict`.
 */
export async function startRetry(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  range: { from: string; to: string },
  address: string,
): Promise<WebhooksOutcome<{ kind: 'started'; retry: WebhookRetry } | { kind: 'conflict' } | Refused>> {
  if (!can(viewer.role, 'webhooks.write')) return { kind: 'forbidden' };
  if (!ENDPOINT_ID.test(endpointId)) return { kind: 'not_found' };
  let retry: WebhookRetry;
  try {
    retry = await ports.platform.call('startWebhookRetry', { id: viewer.accountId, endpoint_id: endpointId }, range);
  } catch (error) {
    return outcomeOf(error);
  }
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: 'webhook_endpoint.retry_started',
    target: endpointId,
    address,
  });
  return { kind: 'started', retry };
}
