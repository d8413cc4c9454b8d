import { internalRoute, type AccountId } from '@idv/contracts';
import { route, toPage, type Pool } from '@idv/kit';
import { webhookReadiness } from '../adapters/readiness.repository';
import type { EndpointRecord } from '../domain/endpoint';
import { getDeliveryAttempt, listDeliveries } from '../use-cases/delivery-log';
import { endpointStates } from '../use-cases/endpoint-state';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from '../use-cases/endpoints';
import { getEndpointHealth } from '../use-cases/endpoint-health';
import { redeliver } from '../use-cases/redeliver';
import { getRetry, listRetries, startRetry } from '../use-cases/retry-failed';
import { sendTestEvent } from '../use-cases/send-test';
import { SECRET_NOT_CACHED, type RouteDeps } from './routes';
import { toAccountEndpoint, toDelivery, toDeliveryAttempt, toEndpointHealth, toRetry } from './views';

const cursorOf = (record: { createdAt: Date; id: string }) => ({ createdAt: record.createdAt.toISOString(), id: record.id });

/** One endpoint as the dashboard shows it, its state read now. */
async function withState(deps: RouteDeps, accountId: AccountId, endpoint: EndpointRecord) {
  const state = (await endpointStates(deps, accountId, [endpoint])).get(endpoint.id)!;
  return toAccountEndpoint(endpoint, state);
}

/**
 * Internal operations (INTERNAL_ROUTES) of the webhooks service: the dashboard's go-live checklist and its
 * webhooks pages. The account is in the path; each operation runs the public route's use case for it, so
 * another account's endpoint or delivery is 404 exactly as through the API.
 */
/** A session's timeline shows at most this many delivery attempts (its most recent). */
const SESSION_DELIVERIES_LIMIT = 500;

export const webhooksInternalRoutes = [
  route(internalRoute('getWebhookReadiness'), async ({ params }, { pool }: { pool: Pool }) => {
    const readiness = await webhookReadiness(pool, params.id);
    return {
      status: 200,
      body: {
        account_id: params.id,
        verdict_endpoints: readiness.verdictEndpoints,
        verdict_endpoint_answered_test: readiness.answeredTest,
      },
    };
  }),
  route(internalRoute('listAccountWebhookEndpoints'), async ({ params, query }, deps: RouteDeps) => {
    const { limit, cursor } = query;
    const after = cursor ? deps.cursors.endpoints.decode(cursor) : null;
    const records = await listEndpoints(deps, params.id, { limit, after });
    const states = await endpointStates(deps, params.id, records.slice(0, limit));
    return {
      status: 200,
      body: toPage(
        records,
        limit,
        (record) => toAccountEndpoint(record, states.get(record.id)!),
        cursorOf,
        deps.cursors.endpoints,
      ),
    };
  }),
  route(internalRoute('createAccountWebhookEndpoint'), async ({ params, body }, deps: RouteDeps) => {
    const { endpoint, secret } = await createEndpoint(deps, params.id, body);
    return { status: 201, body: { ...(await withState(deps, params.id, endpoint)), secret }, headers: SECRET_NOT_CACHED };
  }),
  route(internalRoute('getAccountWebhookEndpoint'), async ({ params }, deps: RouteDeps) => ({
    status: 200,
    body: await withState(deps, params.id, await getEndpoint(deps, params.id, params.endpoint_id)),
  })),
  route(internalRoute('updateAccountWebhookEndpoint'), async ({ params, body }, deps: RouteDeps) => ({
    status: 200,
    body: await withState(deps, params.id, await updateEndpoint(deps, params.id, params.endpoint_id, body)),
  })),
  route(internalRoute('deleteAccountWebhookEndpoint'), async ({ params }, deps: RouteDeps) => {
    await deleteEndpoint(deps, params.id, params.endpoint_id);
    return { status: 200, body: { id: params.endpoint_id, deleted: true as const } };
  }),
  route(internalRoute('rotateAccountWebhookEndpointSecret'), async ({ params }, deps: RouteDeps) => {
    const { endpoint, secret } = await rotateEndpointSecret(deps, params.id, params.endpoint_id);
    return { status: 200, body: { ...(await withState(deps, params.id, endpoint)), secret }, headers: SECRET_NOT_CACHED };
  }),
  route(internalRoute('testAccountWebhookEndpoint'), async ({ params }, deps: RouteDeps) => {
    await sendTestEvent(deps, params.id, params.endpoint_id);
    return { status: 200, body: { queued: true as const } };
  }),
  route(internalRoute('listAccountWebhookDeliveries'), async ({ params, query }, deps: RouteDeps) => {
    const { limit, cursor, status, event_type: eventType, session_id: sessionId, from, to } = query;
    const after = cursor ? deps.cursors.deliveries.decode(cursor) : null;
    const records = await listDeliveries(deps, params.id, {
      endpointId: params.endpoint_id,
      limit,
      after,
      filter: {
        ...(status ? { status } : {}),
        ...(eventType ? { eventType } : {}),
        ...(sessionId ? { sessionId } : {}),
        ...(from ? { from: new Date(from) } : {}),
        ...(to ? { to: new Date(to) } : {}),
      },
    });
    return { status: 200, body: toPage(records, limit, toDelivery, cursorOf, deps.cursors.deliveries) };
  }),
  route(internalRoute('getAccountWebhookDelivery'), async ({ params }, deps: RouteDeps) => ({
    status: 200,
    body: toDeliveryAttempt(await getDeliveryAttempt(deps, params.id, params.delivery_id)),
  })),
  route(internalRoute('redeliverAccountWebhookDelivery'), async ({ params }, deps: RouteDeps) => {
    await redeliver(deps, params.id, params.delivery_id);
    return { status: 200, body: { queued: true as const } };
  }),
  route(internalRoute('startWebhookRetry'), async ({ params, body }, deps: RouteDeps) => ({
    status: 201,
    body: toRetry(await startRetry(deps, params.id, params.endpoint_id, { from: new Date(body.from), to: new Date(body.to) })),
  })),
  route(internalRoute('listWebhookRetries'), async ({ params }, deps: RouteDeps) => ({
    status: 200,
    body: { object: 'list' as const, data: (await listRetries(deps, params.id, params.endpoint_id)).map(toRetry) },
  })),
  route(internalRoute('getWebhookRetry'), async ({ params }, deps: RouteDeps) => ({
    status: 200,
    body: toRetry(await getRetry(deps, params.id, params.retry_id)),
  })),
  route(internalRoute('getWebhookEndpointHealth'), async ({ params }, deps: RouteDeps) => ({
    status: 200,
    body: toEndpointHealth(params.endpoint_id, await getEndpointHealth(deps, params.id, params.endpoint_id)),
  })),
  route(internalRoute('listSessionWebhookDeliveries'), async ({ params }, deps: RouteDeps) => {
    const records = await listDeliveries(deps, params.id, {
      limit: SESSION_DELIVERIES_LIMIT,
      after: null,
      filter: { sessionId: params.sessionId },
    });
    // Read newest first (the log's order and index), shown oldest first: the most recent are kept when there are more.
    const kept = records.slice(0, SESSION_DELIVERIES_LIMIT).reverse();
    return {
      status: 200,
      body: { object: 'list' as const, data: kept.map(toDelivery), has_more: records.length > SESSION_DELIVERIES_LIMIT },
    };
  }),
];
