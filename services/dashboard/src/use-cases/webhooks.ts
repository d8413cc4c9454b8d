import {
  InternalCallError,
  idPattern,
  type AccountWebhookEndpoint,
  type WebhookDelivery,
  type WebhookDeliveryAttempt,
} from '@idv/contracts';
import { appendAudit } from '../adapters/audit.repository';
import { claimFormNonce } from '../adapters/form-submissions.repository';
import { can } from '../domain/roles';
import { deliveryLogQuery, personalDataSessionOf, type DeliveryLogFilter, type EndpointInput } from '../domain/webhooks';
import type { DashboardPorts } from './ports';
import type { Viewer } from './sign-in';

/** Attempts a page of the delivery log shows. */
export const DELIVERY_PAGE_SIZE = 50;
/** Endpoints the list shows (the API's largest page; an account has a handful). */
export const ENDPOINT_PAGE_SIZE = 100;

type Denied = { kind: 'forbidden' } | { kind: 'not_found' };
export type WebhooksOutcome<T> = T | Denied;
/** The API refused a value (its reason, and the field when it names one). */
export type Refused = { kind: 'refused'; field: string | null; detail: string };
export type RateLimited = { kind: 'rate_limited' };

const ENDPOINT_ID = idPattern('webhookEndpoint');
const DELIVERY_ID = idPattern('webhookDelivery');

/** The answers of the webhooks service a page turns into a page of its own; anything else is a failure. */
function expected(error: unknown): Denied | Refused | RateLimited | { kind: 'invalid_cursor' } {
  if (!(error instanceof InternalCallError)) throw error;
  if (error.status === 404) return { kind: 'not_found' };
  if (error.status === 429) return { kind: 'rate_limited' };
  if (error.status === 422 && error.code === 'invalid_cursor') return { kind: 'invalid_cursor' };
  if (error.status === 422) {
    const body = error.body as { detail?: string; errors?: { path?: string; message?: string }[] } | null;
    const first = body?.errors?.[0];
    return { kind: 'refused', field: first?.path ?? null, detail: first?.message ?? body?.detail ?? '' };
  }
  throw error;
}

async function attempt<T>(run: () => Promise<T>) {
  try {
    return await run();
  } catch (error) {
    return expected(error);
  }
}

const audit = (ports: DashboardPorts, viewer: Viewer, action: string, target: string, address: string) =>
  appendAudit(ports.pool, { accountId: viewer.accountId, actorId: viewer.userId, action, target, address });

/** Whether the viewer may change endpoints, and see what attempts sent and received (which may be personal data). */
export function webhookRights(viewer: Viewer): { write: boolean; bodies: boolean } {
  return { write: can(viewer.role, 'webhooks.write'), bodies: can(viewer.role, 'sessions.personal') };
}

/** The account's endpoints with their circuits, newest first (never a secret). */
export async function listEndpoints(
  ports: DashboardPorts,
  viewer: Viewer,
): Promise<WebhooksOutcome<{ kind: 'endpoints'; endpoints: AccountWebhookEndpoint[] }>> {
  if (!can(viewer.role, 'webhooks.read')) return { kind: 'forbidden' };
  const page = await ports.platform.call('listAccountWebhookEndpoints', { id: viewer.accountId }, undefined, {
    limit: String(ENDPOINT_PAGE_SIZE),
  });
  return { kind: 'endpoints', endpoints: page.data };
}

/** One endpoint of the viewer's account; another account's, a deleted one or an id that is not one: not found. */
export async function endpointOf(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
): Promise<WebhooksOutcome<{ kind: 'endpoint'; endpoint: AccountWebhookEndpoint }>> {
  if (!can(viewer.role, 'webhooks.read')) return { kind: 'forbidden' };
  if (!ENDPOINT_ID.test(endpointId)) return { kind: 'not_found' };
  const found = await attempt(() =>
    ports.platform.call('getAccountWebhookEndpoint', { id: viewer.accountId, endpoint_id: endpointId }),
  );
  if ('kind' in found) return notFoundOr(found);
  return { kind: 'endpoint', endpoint: found };
}

export type CreateResult = WebhooksOutcome<
  { kind: 'created'; endpoint: AccountWebhookEndpoint & { secret: string } } | { kind: 'duplicate' } | Refused
>;

/**
 * A new endpoint; its secret goes back to the page once and is never kept here. The form's nonce makes
 * it happen once when the form is sent several times.
 */
export async function createEndpoint(
  ports: DashboardPorts,
  viewer: Viewer,
  input: EndpointInput,
  nonce: string,
  address: string,
): Promise<CreateResult> {
  if (!can(viewer.role, 'webhooks.write')) return { kind: 'forbidden' };
  if (!(await claimFormNonce(ports.pool, nonce, viewer.userId))) return { kind: 'duplicate' };
  const created = await attempt(() => ports.platform.call('createAccountWebhookEndpoint', { id: viewer.accountId }, input));
  if ('kind' in created) return refusedOr(created);
  await audit(ports, viewer, 'webhook_endpoint.created', created.id, address);
  return { kind: 'created', endpoint: created };
}

type Expected = ReturnType<typeof expected>;

/** A refusal or not found; any other answer is unexpected here (a failure page). */
function refusedOr(outcome: Expected): Denied | Refused {
  if (outcome.kind === 'refused' || outcome.kind === 'not_found' || outcome.kind === 'forbidden') return outcome;
  throw new Error(`unexpected answer: ${outcome.kind}`);
}

/** Not found; any other answer is unexpected here. */
function notFoundOr(outcome: Expected): Denied {
  if (outcome.kind === 'not_found') return outcome;
  throw new Error(`unexpected answer: ${outcome.kind}`);
}

/** Not found or rate limited (test and redeliver); any other answer is unexpected here. */
function limitedOr(outcome: Expected): Denied | RateLimited {
  if (outcome.kind === 'rate_limited') return outcome;
  return notFoundOr(outcome);
}

export type UpdateResult = WebhooksOutcome<{ kind: 'updated'; endpoint: AccountWebhookEndpoint } | Refused>;

/** New url, description and events. */
export async function updateEndpoint(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  input: EndpointInput,
  address: string,
): Promise<UpdateResult> {
  return change(ports, viewer, endpointId, input, 'webhook_endpoint.updated', address);
}

/** Disabled: no events until enabled again (tests and redeliveries are still sent). */
export async function setEndpointStatus(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  status: 'active' | 'disabled',
  address: string,
): Promise<UpdateResult> {
  const action = status === 'active' ? 'webhook_endpoint.enabled' : 'webhook_endpoint.disabled';
  return change(ports, viewer, endpointId, { status }, action, address);
}

async function change(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  body: Partial<EndpointInput> & { status?: 'active' | 'disabled' },
  action: string,
  address: string,
): Promise<UpdateResult> {
  if (!can(viewer.role, 'webhooks.write')) return { kind: 'forbidden' };
  if (!ENDPOINT_ID.test(endpointId)) return { kind: 'not_found' };
  const updated = await attempt(() =>
    ports.platform.call('updateAccountWebhookEndpoint', { id: viewer.accountId, endpoint_id: endpointId }, body),
  );
  if ('kind' in updated) return refusedOr(updated);
  await audit(ports, viewer, action, endpointId, address);
  return { kind: 'updated', endpoint: updated };
}

export async function deleteEndpoint(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  address: string,
): Promise<WebhooksOutcome<{ kind: 'deleted'; endpoint: AccountWebhookEndpoint }>> {
  const found = await endpointOf(ports, viewer, endpointId);
  if (found.kind !== 'endpoint') return found;
  if (!can(viewer.role, 'webhooks.write')) return { kind: 'forbidden' };
  const deleted = await attempt(() =>
    ports.platform.call('deleteAccountWebhookEndpoint', { id: viewer.accountId, endpoint_id: endpointId }),
  );
  if ('kind' in deleted) return notFoundOr(deleted);
  await audit(ports, viewer, 'webhook_endpoint.deleted', endpointId, address);
  return { kind: 'deleted', endpoint: found.endpoint };
}

/** A new secret, shown once; the previous one keeps signing until the answer's overlap end. */
export async function rotateSecret(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  address: string,
): Promise<WebhooksOutcome<{ kind: 'rotated'; endpoint: AccountWebhookEndpoint & { secret: string } }>> {
  if (!can(viewer.role, 'webhooks.write')) return { kind: 'forbidden' };
  if (!ENDPOINT_ID.test(endpointId)) return { kind: 'not_found' };
  const rotated = await attempt(() =>
    ports.platform.call('rotateAccountWebhookEndpointSecret', { id: viewer.accountId, endpoint_id: endpointId }),
  );
  if ('kind' in rotated) return notFoundOr(rotated);
  await audit(ports, viewer, 'webhook_endpoint.secret_rotated', endpointId, address);
  return { kind: 'rotated', endpoint: rotated };
}

/** One `test` event, once (the quota of 10 a minute is the API's, shared with redeliver). */
export async function sendTest(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  address: string,
): Promise<WebhooksOutcome<{ kind: 'sent' } | RateLimited>> {
  if (!can(viewer.role, 'webhooks.write')) return { kind: 'forbidden' };
  if (!ENDPOINT_ID.test(endpointId)) return { kind: 'not_found' };
  const sent = await attempt(() =>
    ports.platform.call('testAccountWebhookEndpoint', { id: viewer.accountId, endpoint_id: endpointId }),
  );
  if ('kind' in sent) return limitedOr(sent);
  await audit(ports, viewer, 'webhook_endpoint.test_sent', endpointId, address);
  return { kind: 'sent' };
}

/** A page of the endpoint's log with the filters asked for (a cursor that is not one: the newest page). */
export async function deliveryLog(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  filter: DeliveryLogFilter,
): Promise<WebhooksOutcome<{ kind: 'log'; deliveries: WebhookDelivery[]; next: string | null; cursorRefused: boolean }>> {
  if (!can(viewer.role, 'webhooks.read')) return { kind: 'forbidden' };
  if (!ENDPOINT_ID.test(endpointId)) return { kind: 'not_found' };
  const read = (asked: DeliveryLogFilter) =>
    attempt(() =>
      ports.platform.call(
        'listAccountWebhookDeliveries',
        { id: viewer.accountId, endpoint_id: endpointId },
        undefined,
        deliveryLogQuery(asked, DELIVERY_PAGE_SIZE),
      ),
    );
  let page = await read(filter);
  let cursorRefused = false;
  if ('kind' in page && page.kind === 'invalid_cursor') {
    cursorRefused = true;
    page = await read({ ...filter, cursor: null });
  }
  if ('kind' in page) return notFoundOr(page);
  return { kind: 'log', deliveries: page.data, next: page.next_cursor ?? null, cursorRefused };
}

/** One attempt of this endpoint: one of another endpoint (or account) is not found. */
async function findAttempt(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  deliveryId: string,
): Promise<WebhooksOutcome<{ kind: 'attempt'; attempt: WebhookDeliveryAttempt }>> {
  if (!can(viewer.role, 'webhooks.read')) return { kind: 'forbidden' };
  if (!ENDPOINT_ID.test(endpointId) || !DELIVERY_ID.test(deliveryId)) return { kind: 'not_found' };
  const found = await attempt(() =>
    ports.platform.call('getAccountWebhookDelivery', { id: viewer.accountId, delivery_id: deliveryId }),
  );
  if ('kind' in found) return notFoundOr(found);
  if (found.endpoint_id !== endpointId) return { kind: 'not_found' };
  return { kind: 'attempt', attempt: found };
}

/**
 * One attempt as its page shows it. A body with a person's data is shown only to roles that may see it, and
 * leaves an entry in that session's access trail first (as the session page's "show" does).
 */
export async function deliveryAttempt(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  deliveryId: string,
  address: string,
): Promise<WebhooksOutcome<{ kind: 'attempt'; attempt: WebhookDeliveryAttempt }>> {
  const found = await findAttempt(ports, viewer, endpointId, deliveryId);
  if (found.kind !== 'attempt') return found;
  const sessionId = can(viewer.role, 'sessions.personal') ? personalDataSessionOf(found.attempt.request?.body ?? null) : null;
  if (sessionId) {
    await appendAudit(ports.pool, {
      accountId: viewer.accountId,
      actorId: viewer.userId,
      action: 'session.data_shown',
      target: sessionId,
      address,
    });
  }
  return found;
}

export async function redeliver(
  ports: DashboardPorts,
  viewer: Viewer,
  endpointId: string,
  deliveryId: string,
  address: string,
): Promise<WebhooksOutcome<{ kind: 'redelivered' } | RateLimited>> {
  if (!can(viewer.role, 'webhooks.write')) return { kind: 'forbidden' };
  const found = await findAttempt(ports, viewer, endpointId, deliveryId);
  if (found.kind !== 'attempt') return found;
  const queued = await attempt(() =>
    ports.platform.call('redeliverAccountWebhookDelivery', { id: viewer.accountId, delivery_id: deliveryId }),
  );
  if ('kind' in queued) return limitedOr(queued);
  await audit(ports, viewer, 'webhook_delivery.redelivered', deliveryId, address);
  return { kind: 'redelivered' };
}
