import { PUBLIC_ROUTES, idPattern, newId, type PublicRoute } from '@idv/contracts';
import { AppError, cursorCodec, endpoint, identityOf, notFound, toPage, withTransaction, type Pool } from '@idv/kit';
import { Router } from 'express';
import { z } from 'zod';
import type { SecretBox } from '../adapters/secret-box';
import * as repo from '../adapters/webhooks.repository';
import { urlProblem } from '../domain/address-policy';
import { testEventId, testEventObject } from '../domain/envelope';
import { PREVIOUS_SECRET_GRACE_MS } from '../domain/schedule';
import { generateSecret } from '../domain/signature';
import { toDelivery, toEndpoint } from '../domain/views';

export const ADMIN_QUOTA = { limit: 10, windowMs: 60_000 } as const;

/** Responses that carry a complete signing secret must not be kept by any cache. */
const SECRET_NOT_CACHED = { 'Cache-Control': 'no-store' };

export interface RouteDeps {
  pool: Pool;
  secrets: SecretBox;
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

const EndpointParams = z.object({ id: z.string() });
type Pagination = { limit: number; cursor?: string };

function assertUrl(url: string | undefined, allowLocalTargets: boolean): void {
  if (url === undefined) return;
  const problem = urlProblem(url, allowLocalTargets);
  if (problem) {
    throw new AppError('validation_failed', `url ${problem}.`, { errors: [{ path: 'url', message: problem }] });
  }
}

/** Webhook endpoints and the delivery log, mounted under /v1 behind the gateway's signed identity. */
export function webhooksRouter(deps: RouteDeps): Router {
  const { pool, secrets } = deps;
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

  const takeQuota = async (accountId: string) => {
    const quota = await repo.takeAdminQuota(pool, accountId, ADMIN_QUOTA.limit, ADMIN_QUOTA.windowMs);
    if (!quota.allowed) {
      throw new AppError(
        'rate_limited',
        'Test and redeliver are limited to 10 per minute per account; retry after the Retry-After delay.',
        {
          headers: { 'Retry-After': String(quota.retryAfterSeconds) },
        },
      );
    }
  };

  const findOwnEndpoint = async (accountId: string, id: string) => {
    const row = await repo.findEndpoint(pool, accountId, id);
    if (!row) throw notFound('webhook endpoint');
    return row;
  };

  router.post(
    '/webhook-endpoints',
    endpoint(schemas('createWebhookEndpoint'), async ({ body, res }) => {
      const input = body as { url: string; events: string[]; description: string };
      assertUrl(input.url, deps.allowLocalTargets);
      const { account_id } = identityOf(res);
      const secret = generateSecret();
      const row = await repo.insertEndpoint(pool, {
        id: newId('webhookEndpoint'),
        accountId: account_id,
        url: input.url,
        events: input.events,
        description: input.description,
        secretEnc: secrets.seal(secret),
      });
      return { status: 201, body: toEndpoint(row, secret), headers: SECRET_NOT_CACHED };
    }),
  );

  router.get(
    '/webhook-endpoints',
    endpoint(schemas('listWebhookEndpoints'), async ({ query, res }) => {
      const { limit, cursor } = query as Pagination;
      const after = cursor ? endpointCursors.decode(cursor) : null;
      const rows = await repo.listEndpoints(pool, identityOf(res).account_id, limit, after);
      const page = toPage(
        rows,
        limit,
        (row) => toEndpoint(row),
        (row) => ({ createdAt: row.created_at.toISOString(), id: row.id }),
        endpointCursors,
      );
      return { status: 200, body: page };
    }),
  );

  router.get(
    '/webhook-endpoints/:id',
    endpoint(schemas('getWebhookEndpoint'), async ({ params, res }) => {
      const { id } = EndpointParams.parse(params);
      return { status: 200, body: toEndpoint(await findOwnEndpoint(identityOf(res).account_id, id)) };
    }),
  );

  router.put(
    '/webhook-endpoints/:id',
    endpoint(schemas('updateWebhookEndpoint'), async ({ params, body, res }) => {
      const { id } = EndpointParams.parse(params);
      const patch = body as repo.EndpointPatch;
      assertUrl(patch.url, deps.allowLocalTargets);
      const row = await repo.updateEndpoint(pool, identityOf(res).account_id, id, patch);
      if (!row) throw notFound('webhook endpoint');
      // A url change may have closed the circuit: let the schedule look again.
      if (patch.url !== undefined) deps.onQueued();
      return { status: 200, body: toEndpoint(row) };
    }),
  );

  router.delete(
    '/webhook-endpoints/:id',
    endpoint(schemas('deleteWebhookEndpoint'), async ({ params, res }) => {
      const { id } = EndpointParams.parse(params);
      if (!(await repo.deleteEndpoint(pool, identityOf(res).account_id, id))) throw notFound('webhook endpoint');
      return { status: 204 };
    }),
  );

  router.post(
    '/webhook-endpoints/:id/rotate-secret',
    endpoint(schemas('rotateWebhookEndpointSecret'), async ({ params, res }) => {
      const { id } = EndpointParams.parse(params);
      const secret = generateSecret();
      const row = await repo.rotateSecret(pool, identityOf(res).account_id, id, secrets.seal(secret), PREVIOUS_SECRET_GRACE_MS);
      if (!row) throw notFound('webhook endpoint');
      return { status: 200, body: toEndpoint(row, secret), headers: SECRET_NOT_CACHED };
    }),
  );

  router.post(
    '/webhook-endpoints/:id/test',
    endpoint(schemas('testWebhookEndpoint'), async ({ params, res }) => {
      const { id } = EndpointParams.parse(params);
      const { account_id } = identityOf(res);
      await takeQuota(account_id);
      const row = await findOwnEndpoint(account_id, id);
      await withTransaction(pool, async (tx) => {
        const eventId = testEventId();
        await repo.insertEvent(tx, {
          id: eventId,
          accountId: account_id,
          type: 'test',
          data: testEventObject(row.id),
          options: {},
          occurredAt: new Date().toISOString(),
        });
        await repo.insertAdminMessage(tx, {
          accountId: account_id,
          endpointId: row.id,
          eventId,
          kind: 'test',
        });
        await repo.notifyDue(tx);
      });
      deps.onQueued();
      return { status: 202, body: { queued: true } };
    }),
  );

  router.get(
    '/webhook-deliveries',
    endpoint(schemas('listWebhookDeliveries'), async ({ query, res }) => {
      const { limit, cursor, endpoint: endpointId } = query as Pagination & { endpoint?: string };
      const { account_id } = identityOf(res);
      const after = cursor ? deliveryCursors.decode(cursor) : null;
      if (endpointId && !(await repo.findEndpoint(pool, account_id, endpointId, { includeDeleted: true }))) {
        throw notFound('webhook endpoint');
      }
      const rows = await repo.listDeliveries(pool, account_id, {
        ...(endpointId ? { endpointId } : {}),
        limit,
        cursor: after,
      });
      const page = toPage(
        rows,
        limit,
        toDelivery,
        (row) => ({ createdAt: row.created_at.toISOString(), id: row.id }),
        deliveryCursors,
      );
      return { status: 200, body: page };
    }),
  );

  router.get(
    '/webhook-deliveries/:id',
    endpoint(schemas('getWebhookDelivery'), async ({ params, res }) => {
      const { id } = EndpointParams.parse(params);
      const row = await repo.findDelivery(pool, identityOf(res).account_id, id);
      if (!row) throw notFound('webhook delivery');
      return { status: 200, body: toDelivery(row) };
    }),
  );

  router.post(
    '/webhook-deliveries/:id/redeliver',
    endpoint(schemas('redeliverWebhookDelivery'), async ({ params, res }) => {
      const { id } = EndpointParams.parse(params);
      const { account_id } = identityOf(res);
      await takeQuota(account_id);
      const delivery = await repo.findDelivery(pool, account_id, id);
      if (!delivery) throw notFound('webhook delivery');
      await findOwnEndpoint(account_id, delivery.endpoint_id);
      await withTransaction(pool, async (tx) => {
        await repo.insertAdminMessage(tx, {
          accountId: account_id,
          endpointId: delivery.endpoint_id,
          eventId: delivery.event_id,
          kind: delivery.event_type === 'test' ? 'test' : 'redeliver',
        });
        await repo.notifyDue(tx);
      });
      deps.onQueued();
      return { status: 202, body: { queued: true } };
    }),
  );

  return router;
}
