import { MonthSchema, PaginationQuerySchema, QueuedSchema } from './common';
import { ForbiddenSchema, ProblemSchema } from './errors';
import { idSchema } from './ids';
import type { Scope } from './scopes';
import { CreateSessionBodySchema, SessionListSchema, UsageSchema, VerificationSessionSchema } from './sessions';
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

export interface ResponseSpec {
  description: string;
  schema?: z.ZodTypeAny;
  contentType?: string;
}

/**
 * One public route: the single source of truth from which the gateway builds its routing, scope
 * checks and the OpenAPI document. Paths use OpenAPI `{param}` syntax.
 */
export interface PublicRoute {
  operationId: string;
  method: HttpMethod;
  path: string;
  scope: Scope | null;
  service: UpstreamService;
  summary: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodTypeAny;
  headers?: z.ZodObject;
  responses: Record<number, ResponseSpec>;
}

const sessionIdParams = z.object({ id: idSchema('session') });
const endpointIdParams = z.object({ id: idSchema('webhookEndpoint') });
const deliveryIdParams = z.object({ id: idSchema('webhookDelivery') });
const tokenParams = z.object({ token: z.string().regex(/^lt_[A-Za-z0-9_-]+$/) });
const monthQuery = z.object({ month: MonthSchema.openapi({ param: { name: 'month', in: 'query' } }) });

export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  {
    operationId: 'createVerificationSession',
    method: 'post',
    path: '/v1/verification-sessions',
    scope: 'sessions:write',
    service: 'sessions',
    tag: 'Verification sessions',
    summary: 'Create a verification session (live keys debit one token)',
    headers: z.object({ 'idempotency-key': z.string().min(1).max(255).optional() }),
    body: CreateSessionBodySchema,
    responses: { 201: { description: 'Created', schema: VerificationSessionSchema } },
  },
  {
    operationId: 'listVerificationSessions',
    method: 'get',
    path: '/v1/verification-sessions',
    scope: 'sessions:read',
    service: 'sessions',
    tag: 'Verification sessions',
    summary: 'List sessions of the key mode, newest first',
    query: PaginationQuerySchema,
    responses: { 200: { description: 'A page of sessions', schema: SessionListSchema } },
  },
  {
    operationId: 'getVerificationSession',
    method: 'get',
    path: '/v1/verification-sessions/{id}',
    scope: 'sessions:read',
    service: 'sessions',
    tag: 'Verification sessions',
    summary: 'Get one session, with its result when resolved',
    params: sessionIdParams,
    responses: { 200: { description: 'The session', schema: VerificationSessionSchema } },
  },
  {
    operationId: 'cancelVerificationSession',
    method: 'post',
    path: '/v1/verification-sessions/{id}/cancel',
    scope: 'sessions:write',
    service: 'sessions',
    tag: 'Verification sessions',
    summary: 'Cancel a non-terminal session',
    params: sessionIdParams,
    responses: { 200: { description: 'The canceled session', schema: VerificationSessionSchema } },
  },
  {
    operationId: 'getQrSvg',
    method: 'get',
    path: '/v1/qr/{token}.svg',
    scope: null,
    service: 'sessions',
    tag: 'QR',
    summary: 'QR image (SVG) of a session link; 410 once redeemed',
    params: tokenParams,
    responses: { 200: { description: 'SVG image', contentType: 'image/svg+xml' } },
  },
  {
    operationId: 'getQrPng',
    method: 'get',
    path: '/v1/qr/{token}.png',
    scope: null,
    service: 'sessions',
    tag: 'QR',
    summary: 'QR image (PNG) of a session link; 410 once redeemed',
    params: tokenParams,
    responses: { 200: { description: 'PNG image', contentType: 'image/png' } },
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
    query: monthQuery,
    responses: { 200: { description: 'CSV, one row per session', contentType: 'text/csv' } },
  },
  {
    operationId: 'createWebhookEndpoint',
    method: 'post',
    path: '/v1/webhook-endpoints',
    scope: 'webhooks:write',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'Register a webhook endpoint (the secret is returned complete only here)',
    body: CreateWebhookEndpointBodySchema,
    responses: { 201: { description: 'Created', schema: WebhookEndpointSchema } },
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
    responses: { 200: { description: 'The endpoint', schema: WebhookEndpointSchema } },
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
    body: UpdateWebhookEndpointBodySchema,
    responses: { 200: { description: 'The endpoint', schema: WebhookEndpointSchema } },
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
    responses: { 204: { description: 'Deleted' } },
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
    responses: { 200: { description: 'The endpoint with its new secret', schema: WebhookEndpointSchema } },
  },
  {
    operationId: 'testWebhookEndpoint',
    method: 'post',
    path: '/v1/webhook-endpoints/{id}/test',
    scope: 'webhooks:write',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'Send one `test` event once, no retry (10 per minute with redeliver)',
    params: endpointIdParams,
    responses: { 202: { description: 'Queued', schema: QueuedSchema } },
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
        .openapi({ param: { name: 'endpoint', in: 'query' } }),
    }),
    responses: { 200: { description: 'A page of delivery attempts', schema: WebhookDeliveryListSchema } },
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
    responses: { 200: { description: 'The attempt', schema: WebhookDeliverySchema } },
  },
  {
    operationId: 'redeliverWebhookDelivery',
    method: 'post',
    path: '/v1/webhook-deliveries/{id}/redeliver',
    scope: 'webhooks:write',
    service: 'webhooks',
    tag: 'Webhooks',
    summary: 'A new real attempt of that delivery event to that endpoint, no retry',
    params: deliveryIdParams,
    responses: { 202: { description: 'Queued', schema: QueuedSchema } },
  },
  {
    operationId: 'getOpenApiDocument',
    method: 'get',
    path: '/v1/openapi.json',
    scope: null,
    service: 'gateway',
    tag: 'Meta',
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'OpenAPI document' } },
  },
];

/** Problem responses every authenticated route can give, added to the OpenAPI document. */
export const COMMON_ERROR_RESPONSES = {
  401: { description: 'Broken authorization context (`unauthorized`)', schema: ProblemSchema },
  403: {
    description: 'Forbidden, `account_inactive` or `insufficient_scope`',
    schema: z.union([ForbiddenSchema, ProblemSchema]),
  },
  422: { description: 'Validation failed', schema: ProblemSchema },
  429: { description: 'Rate limited (`rate_limited`), see Retry-After', schema: ProblemSchema },
} satisfies Record<number, ResponseSpec>;
