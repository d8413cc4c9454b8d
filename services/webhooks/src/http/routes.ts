import {
  PUBLIC_ROUTES,
  asId,
  idPattern,
  type CreateWebhookEndpointBodySchema,
  type PublicRoute,
  type UpdateWebhookEndpointBodySchema,
} from '@idv/contracts';
import { cursorCodec, endpoint, identityOf, toPage, type Pool } from '@idv/kit';
import { Router, type Response } from 'express';
import { z } from 'zod';
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

/** Responses that carry a complete signing secret must not be kept by any cache. */
const SECRET_NOT_CACHED = { 'Cache-Control': 'no-store' };

export interface RouteDeps {
  pool: Pool;
  secrets: SecretSealer;
  allowLocalTargets: boolean;
  onQueued: () => void;
  /** The shared INTERNAL_TOKEN: list cursors are signed with keys derived from it. */
  cursorSecret: string;
}

/** The contract of a public route (schemas live in packages/contracts, once). */
function contract(operationId: string): PublicRoute {
  const route = PUBLIC_ROUTES.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no public route ${operationId}`);
  return route;
}

function schemas(operationId: string) {
  const route = contract(operationId);
  return {
    ...(route.params ? { params: route.params } : {}),
    ...(route.query ? { query: route.query } : {}),
    ...(route.body ? { body: route.body } : {}),
  };
}

type Pagination = { limit: number; cursor?: string };
const accountOf = (res: Response) => asId('account', identityOf(res).account_id);
// The contract's schema has checked the id's shape already.
const IdParams = z.object({ id: z.string() });
const endpointIdOf = (params: unknown) => asId('webhookEndpoint', IdParams.parse(params).id);
const deliveryIdOf = (params: unknown) => asId('webhookDelivery', IdParams.parse(params).id);

/** Webhook endpoints and the delivery log, mounted under /v1 behind the gateway's signed identity. */
export function webhooksRouter(deps: RouteDeps): Router {
  const router = Router();
  const endpointCursors = cursorCodec({
    secret: deps.cursorSecret,
    purpose: 'webhook-endpoints',
    idPattern: idPattern('webhookEndpoint'),
  });
  const deliveryCursors = cursorCodec({
    secret: deps.cursorSecret,
    purpose: 'webhook-deliveries',
    idPattern: idPattern('webhookDelivery'),
  });
  const cursorOf = (record: { createdAt: Date; id: string }) => ({ createdAt: record.createdAt.toISOString(), id: record.id });

  router.post(
    '/webhook-endpoints',
    endpoint(schemas('createWebhookEndpoint'), async ({ body, res }) => {
      const input = body as z.infer<typeof CreateWebhookEndpointBodySchema>;
      const { endpoint: created, secret } = await createEndpoint(deps, accountOf(res), input);
      return { status: 201, body: toEndpoint(created, secret), headers: SECRET_NOT_CACHED };
    }),
  );

  router.get(
    '/webhook-endpoints',
    endpoint(schemas('listWebhookEndpoints'), async ({ query, res }) => {
      const { limit, cursor } = query as Pagination;
      const after = cursor ? endpointCursors.decode(cursor) : null;
      const records = await listEndpoints(deps, accountOf(res), { limit, after });
      return { status: 200, body: toPage(records, limit, (record) => toEndpoint(record), cursorOf, endpointCursors) };
    }),
  );

  router.get(
    '/webhook-endpoints/:id',
    endpoint(schemas('getWebhookEndpoint'), async ({ params, res }) => ({
      status: 200,
      body: toEndpoint(await getEndpoint(deps, accountOf(res), endpointIdOf(params))),
    })),
  );

  router.put(
    '/webhook-endpoints/:id',
    endpoint(schemas('updateWebhookEndpoint'), async ({ params, body, res }) => {
      const patch = body as z.infer<typeof UpdateWebhookEndpointBodySchema>;
      return { status: 200, body: toEndpoint(await updateEndpoint(deps, accountOf(res), endpointIdOf(params), patch)) };
    }),
  );

  router.delete(
    '/webhook-endpoints/:id',
    endpoint(schemas('deleteWebhookEndpoint'), async ({ params, res }) => {
      await deleteEndpoint(deps, accountOf(res), endpointIdOf(params));
      return { status: 204 };
    }),
  );

  router.post(
    '/webhook-endpoints/:id/rotate-secret',
    endpoint(schemas('rotateWebhookEndpointSecret'), async ({ params, res }) => {
      const { endpoint: rotated, secret } = await rotateEndpointSecret(deps, accountOf(res), endpointIdOf(params));
      return { status: 200, body: toEndpoint(rotated, secret), headers: SECRET_NOT_CACHED };
    }),
  );

  router.post(
    '/webhook-endpoints/:id/test',
    endpoint(schemas('testWebhookEndpoint'), async ({ params, res }) => {
      await sendTestEvent(deps, accountOf(res), endpointIdOf(params));
      return { status: 202, body: { queued: true } };
    }),
  );

  router.get(
    '/webhook-deliveries',
    endpoint(schemas('listWebhookDeliveries'), async ({ query, res }) => {
      const { limit, cursor, endpoint: endpointId } = query as Pagination & { endpoint?: string };
      const after = cursor ? deliveryCursors.decode(cursor) : null;
      const records = await listDeliveries(deps, accountOf(res), {
        ...(endpointId ? { endpointId: asId('webhookEndpoint', endpointId) } : {}),
        limit,
        after,
      });
      return { status: 200, body: toPage(records, limit, toDelivery, cursorOf, deliveryCursors) };
    }),
  );

  router.get(
    '/webhook-deliveries/:id',
    endpoint(schemas('getWebhookDelivery'), async ({ params, res }) => ({
      status: 200,
      body: toDelivery(await getDelivery(deps, accountOf(res), deliveryIdOf(params))),
    })),
  );

  router.post(
    '/webhook-deliveries/:id/redeliver',
    endpoint(schemas('redeliverWebhookDelivery'), async ({ params, res }) => {
      await redeliver(deps, accountOf(res), deliveryIdOf(params));
      return { status: 202, body: { queued: true } };
    }),
  );

  return router;
}
