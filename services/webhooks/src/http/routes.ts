import { idPattern, publicRoute } from '@idv/contracts';
import { cursorCodec, identityOf, route, toPage, type CursorCodec, type Pool } from '@idv/kit';
import type { Response } from 'express';
import type { SecretSealer } from '../domain/ports';
import { listDeliveries, getDelivery } from '../use-cases/delivery-log';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from '../use-cases/endpoints';
import { redeliver } from '../use-cases/redeliver';
import { sendTestEvent } from '../use-cases/send-test';
import { toDelivery, toEndpoint } from './views';

/** Responses that carry a complete signing secret must not be kept by any cache (the public and the internal routes). */
export const SECRET_NOT_CACHED = { 'Cache-Control': 'no-store' };

export interface RouteDeps {
  pool: Pool;
  secrets: SecretSealer;
  allowLocalTargets: boolean;
  onQueued: () => void;
  /** Sends per second of a retry of failed deliveries (WEBHOOKS_RETRY_PER_SECOND). */
  retryPerSecond: number;
  /** List cursors, signed with keys derived from the shared INTERNAL_TOKEN. */
  cursors: { endpoints: CursorCodec; deliveries: CursorCodec };
}

/** The list cursors of both lists, signed with keys derived from `secret` (the shared INTERNAL_TOKEN). */
export function listCursors(secret: string): RouteDeps['cursors'] {
  return {
    endpoints: cursorCodec({ secret, purpose: 'webhook-endpoints', idPattern: idPattern('webhookEndpoint') }),
    deliveries: cursorCodec({ secret, purpose: 'webhook-deliveries', idPattern: idPattern('webhookDelivery') }),
  };
}

const accountOf = (res: Response) => identityOf(res).account_id;
const cursorOf = (record: { createdAt: Date; id: string }) => ({ createdAt: record.createdAt.toISOString(), id: record.id });

/** Webhook endpoints and the delivery log (PUBLIC_ROUTES), behind the gateway's signed identity. */
export const webhooksRoutes = [
  route(publicRoute('createWebhookEndpoint'), async ({ body, res }, deps: RouteDeps) => {
    const { endpoint: created, secret } = await createEndpoint(deps, accountOf(res), body);
    return { status: 201, body: toEndpoint(created, secret), headers: SECRET_NOT_CACHED };
  }),
  route(publicRoute('listWebhookEndpoints'), async ({ query, res }, deps: RouteDeps) => {
    const { limit, cursor } = query;
    const after = cursor ? deps.cursors.endpoints.decode(cursor) : null;
    const records = await listEndpoints(deps, accountOf(res), { limit, after });
    return { status: 200, body: toPage(records, limit, (record) => toEndpoint(record), cursorOf, deps.cursors.endpoints) };
  }),
  route(publicRoute('getWebhookEndpoint'), async ({ params, res }, deps: RouteDeps) => ({
    status: 200,
    body: toEndpoint(await getEndpoint(deps, accountOf(res), params.id)),
  })),
  route(publicRoute('updateWebhookEndpoint'), async ({ params, body, res }, deps: RouteDeps) => ({
    status: 200,
    body: toEndpoint(await updateEndpoint(deps, accountOf(res), params.id, body)),
  })),
  route(publicRoute('deleteWebhookEndpoint'), async ({ params, res }, deps: RouteDeps) => {
    await deleteEndpoint(deps, accountOf(res), params.id);
    return { status: 204 };
  }),
  route(publicRoute('rotateWebhookEndpointSecret'), async ({ params, res }, deps: RouteDeps) => {
    const { endpoint: rotated, secret } = await rotateEndpointSecret(deps, accountOf(res), params.id);
    return { status: 200, body: toEndpoint(rotated, secret), headers: SECRET_NOT_CACHED };
  }),
  route(publicRoute('testWebhookEndpoint'), async ({ params, res }, deps: RouteDeps) => {
    await sendTestEvent(deps, accountOf(res), params.id);
    return { status: 202, body: { queued: true as const } };
  }),
  route(publicRoute('listWebhookDeliveries'), async ({ query, res }, deps: RouteDeps) => {
    const { limit, cursor, endpoint: endpointId } = query;
    const after = cursor ? deps.cursors.deliveries.decode(cursor) : null;
    const records = await listDeliveries(deps, accountOf(res), {
      ...(endpointId ? { endpointId: endpointId } : {}),
      limit,
      after,
    });
    return { status: 200, body: toPage(records, limit, toDelivery, cursorOf, deps.cursors.deliveries) };
  }),
  route(publicRoute('getWebhookDelivery'), async ({ params, res }, deps: RouteDeps) => ({
    status: 200,
    body: toDelivery(await getDelivery(deps, accountOf(res), params.id)),
  })),
  route(publicRoute('redeliverWebhookDelivery'), async ({ params, res }, deps: RouteDeps) => {
    await redeliver(deps, accountOf(res), params.id);
    return { status: 202, body: { queued: true as const } };
  }),
];
