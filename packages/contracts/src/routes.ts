import { MonthSchema, PaginationQuerySchema, QueuedSchema } from './common';
import type { ErrorCode } from './errors';
import { idSchema, linkTokenSchema } from './ids';
import type { Scope } from './scopes';
import {
  CreateSessionBodySchema,
  IdempotencyKeySchema,
  SessionListSchema,
  UsageSchema,
  VerificationSessionSchema,
} from './sessions';
import {
  CreateWebhookEndpointBodySchema,
  UpdateWebhookEndpointBodySchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
} from './webhooks';
import { z } from './zod';

export type UpstreamService = 'sessions' | 'webhooks' | 'gateway';
export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** Response headers a route declares beyond those the OpenAPI generator adds from the route's facts. */
export type RouteResponseHeader = 'Cache-Control' | 'Content-Disposition' | 'Idempotent-Replayed';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodTypeAny;
  contentType?: string;
  headers?: readonly RouteResponseHeader[];
  /** Error responses: the problem codes this status carries here (default: every code of the status). */
  codes?: readonly ErrorCode[];
}

/**
 * What a service mounts, public or internal: the kit's `route(contract, handler)` parses the request
 * (params, query, headers, body) with these schemas and types the handler's reply from `responses`.
 * Paths use OpenAPI `{param}` syntax.
 */
export interface RouteContract {
  operationId: string;
  method: HttpMethod;
  path: string;
  /** The service that mounts the route (the gateway proxies public ones to it). */
  service: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodTypeAny;
  /** Header names in lower case, as node gives them. */
  headers?: z.ZodObject;
  responses: Readonly<Record<number, { description: string; schema?: z.ZodTypeAny; contentType?: string }>>;
}

/**
 * One public route: the single source of truth from which the gateway builds its routing, scope
 * checks and the OpenAPI document, and from which the owning service mounts it.
 */
export interface PublicRoute extends RouteContract {
  scope: Scope | null;
  service: UpstreamService;
  summary: string;
  /** Longer text for the OpenAPI operation; the required scope is appended by the generator. */
  description?: string;
  tag: string;
  /**
   * The success response and the errors particular to this route. Errors every route of its kind
   * gives (auth, rate limit, validation, body, gateway) are added by the OpenAPI generator.
   */
  responses: Readonly<Record<number, ResponseSpec>>;
}

const sessionIdParams = z.object({ id: idSchema('session') });
const endpointIdParams = z.object({ id: idSchema('webhookEndpoint') });
const deliveryIdParams = z.object({ id: idSchema('webhookDelivery') });
const tokenParams = z.object({ token: linkTokenSchema() });
const monthQuery = z.object({
  month: MonthSchema.openapi({ param: { name: 'month', in: 'query' }, description: 'The month, YYYY-MM' }),
});

/** The entries with their literal types kept (what `publicRoute()` hands to the kit's `route()`). */
const PUBLIC_ROUTE_ENTRIES = [
  {
    operationId: 'createVerificationSession',
    method: 'post',
    path: '/v1/verification-sessions',
    scope: 'sessions:write',
    service: 'sessions',
    tag: 'Verification sessions',
    summary: 'Create a verification session (live keys debit one token)',
    description:
      'Creates a session bound to the configuration version active in the key mode and returns its single-use `url`, `qr` and `expires_at`. A live key debits one token in the same transaction; a test key never does. With `Idempotency-Key` (scoped per account, mode and key), the same key and body return the first response again with `Idempotent-Replayed: true`.',
    headers: z.object({
      // Counted in characters (code points) as the spec counts them; the document states the same bounds.
      'idempotency-key': IdempotencyKeySchema.optional().openapi({
        minLength: 1,
        maxLength: 255,
        description:
          'Makes a retry safe: the same key and body return the first response, another body or a first request still in flight is 409.',
      }),
    }),
    body: CreateSessionBodySchema,
    responses: {
      201: {
        description: 'Created (or the replay of the first response for the same Idempotency-Key and body)',
        schema: VerificationSessionSchema,
        headers: ['Idempotent-Replayed', 'Cache-Control'],
      },
      402: { description: 'Live key and no token left (`insufficient_balance`)' },
      409: {
        description:
          'Idempotency-Key reused with another body, or its first request still in flight: retry in a few seconds (`conflict`)',
        codes: ['conflict'],
      },
      422: {
        description:
          'Invalid body or Idempotency-Key, or a project_id of no project of this account (`validation_failed`, with `errors`); no configuration published in the key mode (`config_not_published`)',
        codes: ['validation_failed', 'config_not_published'],
      },
    },
  },
  {
    operationId: 'listVerificationSessions',
    method: 'get',
    path: '/v1/verification-sessions',
    scope: 'sessions:read',
    service: 'sessions',
    tag: 'Verification sessions',
    summary: 'List sessions of the key mode, newest first',
    description: 'Cursor pagination: pass `next_cursor` of the previous page unchanged as `cursor` while `has_more` is true.',
    query: PaginationQuerySchema,
    responses: { 200: { description: 'A page of sessions', schema: SessionListSchema, headers: ['Cache-Control'] } },
  },
  {
    operationId: 'getVerificationSession',
    method: 'get',
    path: '/v1/verification-sessions/{id}',
    scope: 'sessions:read',
    service: 'sessions',
    tag: 'Verification sessions',
    summary: 'Get one session, with its result when resolved',
    description:
      '`url`, `qr` and `expires_at` are present while the session is `pending` and its link has not expired; `result` and `completed_at` once it is terminal; `evidence_links` (fresh, valid 5 minutes) when the configuration opted in. An id of another account or mode is 404, never 403.',
    params: sessionIdParams,
    responses: {
      200: { description: 'The session', schema: VerificationSessionSchema, headers: ['Cache-Control'] },
      404: { description: 'No such session for this account and mode (`not_found`)' },
    },
  },
  {
    operationId: 'cancelVerificationSession',
    method: 'post',
    path: '/v1/verification-sessions/{id}/cancel',
    scope: 'sessions:write',
    service: 'sessions',
    tag: 'Verification sessions',
    summary: 'Cancel a non-terminal session',
    description: 'Emits `verification_session.canceled`. Canceling a session that is already terminal changes nothing.',
    params: sessionIdParams,
    responses: {
      200: { description: 'The canceled session', schema: VerificationSessionSchema, headers: ['Cache-Control'] },
      404: { description: 'No such session for this account and mode (`not_found`)' },
      409: {
        description:
          'The session is already terminal (`session_terminal`), or it kept changing under concurrent updates: retry (`conflict`)',
      },
    },
  },
  {
    operationId: 'getQrSvg',
    method: 'get',
    path: '/v1/qr/{token}.svg',
    scope: null,
    service: 'sessions',
    tag: 'QR',
    summary: 'QR image (SVG) of a session link; 410 once redeemed',
    description:
      'Public, no key: the image encodes the session `url`. Valid while the link is: 410 once it was opened and redeemed or expired.',
    params: tokenParams,
    responses: {
      200: { description: 'SVG image', contentType: 'image/svg+xml', headers: ['Cache-Control'] },
      404: { description: 'No such link (`not_found`)' },
      410: {
        description: 'The link was already opened and redeemed (`link_redeemed`) or is no longer valid (`link_expired`)',
        codes: ['link_redeemed', 'link_expired'],
      },
    },
  },
  {
    operationId: 'getQrPng',
    method: 'get',
    path: '/v1/qr/{token}.png',
    scope: null,
    service: 'sessions',
    tag: 'QR',
    summary: 'QR image (PNG) of a session link; 410 once redeemed',
    description:
      'Public, no key: the image encodes the session `url`. Valid while the link is: 410 once it was opened and redeemed or expired.',
    params: tokenParams,
    responses: {
      200: { description: 'PNG image', contentType: 'image/png', headers: ['Cache-Control'] },
      404: { description: 'No such link (`not_found`)' },
      410: {
        description: 'The link was already opened and redeemed (`link_redeemed`) or is no longer valid (`link_expired`)',
        codes: ['link_redeemed', 'link_expired'],
      },
    },
  },
  {
    operationId: 'getUsage',
    method: 'get',
    path: '/v1/usage',
    scope: 'usage:read',
    service: 'sessions',
    tag: 'Usage',
    summary: 'Monthly usage: sessions per mode and status, tokens debited',
    query: monthQuery,
    responses: { 200: { description: 'Usage of the month', schema: UsageSchema } },
  },
  {
    operationId: 'exportUsageSessionsCsv',
    method: 'get',
    path: '/v1/usage/sessions.csv',
    scope: 'usage:read',
    service: 'sessions',
    tag: 'Usage',
    summary: 'CSV export of the month sessions, no personal data',
    description:
      'Columns `session_id, mode, project_id, config_version, status, outcome, created_at, completed_at, tokens_debited` (RFC 4180, CRLF line ends), one row per session created in the month in either mode. No personal data and no `external_ref`.',
    query: monthQuery,
    responses: {
      200: {
        description: 'CSV, one row per session',
        contentType: 'text/csv',
        headers: ['Content-Disposition', 'Cache-Control'],
      },
    },
  },
  {
    operationId: 'createWebhookEndpoint',
    method: 'post',
    path: '/v1/webhook-endpoints',
    scope: 'webhooks:write',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'Register a webhook endpoint (the secret is returned complete only here)',
    description:
      'The endpoint receives events of test and live sessions alike (tell them apart by `data.object.mode`). `url` must be https. The complete `secret` (`whsec_…`) is in this response only.',
    body: CreateWebhookEndpointBodySchema,
    responses: {
      201: {
        description: 'Created, with the complete signing secret',
        schema: WebhookEndpointSchema,
        headers: ['Cache-Control'],
      },
    },
  },
  {
    operationId: 'listWebhookEndpoints',
    method: 'get',
    path: '/v1/webhook-endpoints',
    scope: 'webhooks:read',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'List webhook endpoints',
    query: PaginationQuerySchema,
    responses: { 200: { description: 'A page of endpoints', schema: WebhookEndpointListSchema } },
  },
  {
    operationId: 'getWebhookEndpoint',
    method: 'get',
    path: '/v1/webhook-endpoints/{id}',
    scope: 'webhooks:read',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'Get one webhook endpoint (never the full secret)',
    params: endpointIdParams,
    responses: {
      200: { description: 'The endpoint', schema: WebhookEndpointSchema },
      404: { description: 'No such webhook endpoint for this account (`not_found`)' },
    },
  },
  {
    operationId: 'updateWebhookEndpoint',
    method: 'put',
    path: '/v1/webhook-endpoints/{id}',
    scope: 'webhooks:write',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'Replace the fields sent; a url change closes the circuit',
    params: endpointIdParams,
    description: 'Fields not sent keep their value. A new `url` closes the circuit of the endpoint and resets its failure count.',
    body: UpdateWebhookEndpointBodySchema,
    responses: {
      200: { description: 'The endpoint', schema: WebhookEndpointSchema },
      404: { description: 'No such webhook endpoint for this account (`not_found`)' },
    },
  },
  {
    operationId: 'deleteWebhookEndpoint',
    method: 'delete',
    path: '/v1/webhook-endpoints/{id}',
    scope: 'webhooks:write',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'Delete a webhook endpoint',
    params: endpointIdParams,
    responses: {
      204: { description: 'Deleted' },
      404: { description: 'No such webhook endpoint for this account (`not_found`)' },
    },
  },
  {
    operationId: 'rotateWebhookEndpointSecret',
    method: 'post',
    path: '/v1/webhook-endpoints/{id}/rotate-secret',
    scope: 'webhooks:write',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'New signing secret; the old one keeps signing for 24 h',
    params: endpointIdParams,
    description:
      'Returns the new complete secret, once. For 24 hours deliveries carry one `v1=` signature per secret, so receivers can switch without losing events.',
    responses: {
      200: { description: 'The endpoint with its new secret', schema: WebhookEndpointSchema, headers: ['Cache-Control'] },
      404: { description: 'No such webhook endpoint for this account (`not_found`)' },
    },
  },
  {
    operationId: 'testWebhookEndpoint',
    method: 'post',
    path: '/v1/webhook-endpoints/{id}/test',
    scope: 'webhooks:write',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'Send one `test` event once, no retry (10 per minute with redeliver)',
    description:
      'Sends one signed event of type `test` to the endpoint whatever its `events`, once, with no retry, ignoring its circuit; the attempt is in the delivery log.',
    params: endpointIdParams,
    responses: {
      202: { description: 'Queued', schema: QueuedSchema },
      404: { description: 'No such webhook endpoint for this account (`not_found`)' },
      429: {
        description:
          'Rate limited (`rate_limited`): test and redeliver above 10 per minute per account (shared, rejected calls count), the account request rate, or failed authentications from this address; wait `Retry-After` seconds',
      },
    },
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'get',
    path: '/v1/webhook-deliveries',
    scope: 'webhooks:read',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'Delivery log, newest first',
    query: PaginationQuerySchema.extend({
      endpoint: idSchema('webhookEndpoint')
        .optional()
        .openapi({ param: { name: 'endpoint', in: 'query' }, description: 'Only the attempts to this endpoint' }),
    }),
    responses: {
      200: { description: 'A page of delivery attempts', schema: WebhookDeliveryListSchema },
      404: { description: 'The `endpoint` filter names no endpoint of this account (`not_found`)' },
    },
  },
  {
    operationId: 'getWebhookDelivery',
    method: 'get',
    path: '/v1/webhook-deliveries/{id}',
    scope: 'webhooks:read',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'One delivery attempt',
    params: deliveryIdParams,
    responses: {
      200: { description: 'The attempt', schema: WebhookDeliverySchema },
      404: { description: 'No such delivery for this account (`not_found`)' },
    },
  },
  {
    operationId: 'redeliverWebhookDelivery',
    method: 'post',
    path: '/v1/webhook-deliveries/{id}/redeliver',
    scope: 'webhooks:write',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'A new real attempt of that delivery event to that endpoint, no retry',
    description:
      'Sends the event of that delivery to its endpoint again, once: never dropped as a duplicate, never retried, sent even while the circuit is open.',
    params: deliveryIdParams,
    responses: {
      202: { description: 'Queued', schema: QueuedSchema },
      404: { description: 'No such delivery, or its endpoint was deleted (`not_found`)' },
      429: {
        description:
          'Rate limited (`rate_limited`): test and redeliver above 10 per minute per account (shared, rejected calls count), the account request rate, or failed authentications from this address; wait `Retry-After` seconds',
      },
    },
  },
  {
    operationId: 'getOpenApiDocument',
    method: 'get',
    path: '/v1/openapi.json',
    scope: null,
    service: 'gateway',
    tag: 'Meta',
    summary: 'This OpenAPI 3.1 document',
    description: 'Generated from the same zod contracts the services validate with. Public, no key.',
    responses: { 200: { description: 'OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
  },
] as const satisfies readonly PublicRoute[];

export const PUBLIC_ROUTES: readonly PublicRoute[] = PUBLIC_ROUTE_ENTRIES;

export type PublicRouteEntry = (typeof PUBLIC_ROUTE_ENTRIES)[number];
export type PublicOperationId = PublicRouteEntry['operationId'];

/** The contract entry of a public operation, with its schemas' types kept. */
export function publicRoute<Id extends PublicOperationId>(operationId: Id): Extract<PublicRouteEntry, { operationId: Id }> {
  const found = PUBLIC_ROUTE_ENTRIES.find((route) => route.operationId === operationId);
  if (!found) throw new Error(`no public route ${operationId}`);
  return found as Extract<PublicRouteEntry, { operationId: Id }>;
}
