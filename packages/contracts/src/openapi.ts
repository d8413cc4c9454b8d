import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { TimestampSchema } from './common';
import { ERROR_CODES, ERROR_STATUS, ERRORS_DOC_URL, ForbiddenSchema, ProblemSchema, type ErrorCode } from './errors';
import { NEVER_EMITTED_EVENT_TYPES, SESSION_EVENT_TYPES, type WebhookEventType } from './events';
import { EVENT_ID_PATTERN, idSchema } from './ids';
import { PUBLIC_ROUTES, type PublicRoute, type ResponseSpec, type RouteResponseHeader } from './routes';
import { VerificationSessionSchema } from './sessions';
import { z } from './zod';

type Json = Record<string, unknown>;

const ref = (kind: 'schemas' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const TAGS: Record<string, string> = {
  'Verification sessions':
    'Create, list, read and cancel verification sessions. The mode (test or live) comes from the key, never from a parameter.',
  QR: 'Public QR images of a session link, for the person to scan; no key.',
  Usage: 'Monthly usage and the CSV export of the month sessions.',
  Webhooks: 'Webhook endpoints, their signing secrets, test events and the delivery log.',
  Meta: 'This document.',
  'Webhook events':
    'What the service POSTs to your endpoints, described in the `webhooks` section of this document: one operation per event type.',
};

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': {
    description: 'Capacity of the account token bucket (the burst). Shared by all keys of the account, both modes.',
    schema: { type: 'integer' as const, minimum: 0 },
  },
  'RateLimit-Remaining': {
    description: 'Whole requests left in the bucket after this one.',
    schema: { type: 'integer' as const, minimum: 0 },
  },
  'RateLimit-Reset': { description: 'Seconds until the bucket is full again.', schema: { type: 'integer' as const, minimum: 0 } },
  'RateLimit-Policy': {
    description: 'The bucket: `<refill per second>;w=1;burst=<capacity>`.',
    schema: { type: 'string' as const, example: '20;w=1;burst=40' },
  },
};

/** Reusable response headers (`components.headers`), each `required` where it is declared. */
const HEADERS = {
  'X-Request-Id': {
    description:
      'Id of this request: the caller `X-Request-Id` when it is 1 to 128 characters of `A-Za-z0-9_.:-`, otherwise a generated one. Quote it to support.',
    required: true,
    schema: { type: 'string' as const, example: 'req_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6' },
  },
  ...mapValues(RATE_LIMIT_HEADERS, (header) => ({ ...header, required: true })),
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer' as const, minimum: 0 },
  },
  Allow: {
    description: 'The methods this path accepts.',
    required: true,
    schema: { type: 'string' as const, example: 'GET, POST' },
  },
  'Idempotent-Replayed': {
    description:
      'Present (`true`) when this is the stored first response to the same Idempotency-Key and body: nothing was created or debited again.',
    required: false,
    schema: { type: 'string' as const, enum: ['true'] },
  },
  'Content-Disposition': {
    description: 'Download name of the export.',
    required: true,
    schema: { type: 'string' as const, example: 'attachment; filename="sessions-2026-11.csv"' },
  },
  'Cache-Control': {
    description: '`no-store`: the response carries a link, a secret or personal data and must not be cached.',
    required: true,
    schema: { type: 'string' as const, enum: ['no-store'] },
  },
} satisfies Record<string, Json> & Record<RouteResponseHeader, Json>;

/** Statuses a keyed route can only answer after the rate limiter took a token, so with `RateLimit-*`. */
const AFTER_RATE_LIMIT = new Set([400, 402, 404, 409, 410, 413, 415, 422, 502]);
/**
 * Statuses a keyed route answers before or after the limiter: a refused key or too many failed
 * authentications from one address never reach it; a missing scope or the account bucket do.
 */
const MAYBE_RATE_LIMITED = new Set([401, 403, 429, 500]);

const GENERIC_ERRORS: Record<number, string> = {
  400: 'The body is not valid JSON (`invalid_json`).',
  401: 'The authorization context could not be established (`unauthorized`): a platform issue, not the key.',
  403: 'A missing, malformed, unknown or revoked key gets `{"message":"Forbidden"}` as `application/json`, indistinguishable on purpose. An account pending approval or suspended (`account_inactive`) or a key without the required scope (`insufficient_scope`, with `required_scope`) gets a problem.',
  405: 'The path exists, but not with this method (`method_not_allowed`); `Allow` lists the methods it accepts.',
  413: 'The body exceeds 256 KiB (`payload_too_large`).',
  415: 'A body was sent that is not `application/json` (`unsupported_media_type`).',
  422: 'The request failed validation (`validation_failed`, with `errors` naming each field).',
  429: 'Rate limited (`rate_limited`): above 20 requests per second per account (burst of 40), or too many failed authentications from this client address. Wait `Retry-After` seconds.',
  500: 'Unexpected error (`internal_error`); it never carries internals: quote the `request_id`.',
  502: 'The service behind the gateway is unreachable (`upstream_unavailable`); retry after `Retry-After`.',
  503: 'Authentication, or a service this answer needs (the evidence links of a session), is temporarily unavailable (`service_unavailable`); retry after `Retry-After`.',
};

function mapValues<T extends Record<string, unknown>, R>(object: T, map: (value: T[keyof T]) => R): { [K in keyof T]: R } {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value as T[keyof T])])) as {
    [K in keyof T]: R;
  };
}

function codesOf(status: number): ErrorCode[] {
  return ERROR_CODES.filter((code) => ERROR_STATUS[code] === status);
}

function problemContent(status: number, codes: readonly ErrorCode[]) {
  return {
    'application/problem+json': {
      schema: {
        allOf: [
          ref('schemas', 'Problem'),
          {
            type: 'object' as const,
            properties: {
              status: { type: 'integer' as const, const: status },
              code: { type: 'string' as const, enum: [...codes] },
            },
          },
        ],
      },
    },
  };
}

/** The errors a route gives because of what it is (keyed, proxied, with a body), before its own. */
function genericErrors(route: PublicRoute): Record<number, ResponseSpec> {
  const keyed = route.scope !== null;
  const proxied = route.service !== 'gateway';
  const errors: Record<number, ResponseSpec> = {};
  const add = (status: number, spec: ResponseSpec = { description: GENERIC_ERRORS[status]! }) => (errors[status] = spec);
  if (proxied && (route.method === 'post' || route.method === 'put')) [400, 415].forEach((status) => add(status));
  if (keyed) {
    [401, 403, 429, 503].forEach((status) => add(status));
    add(
      422,
      route.query?.shape.cursor
        ? {
            description: `${GENERIC_ERRORS[422]} A cursor that is not a \`next_cursor\` of this list is \`invalid_cursor\`.`,
            codes: ['validation_failed', 'invalid_cursor'],
          }
        : { description: GENERIC_ERRORS[422]!, codes: ['validation_failed'] },
    );
  } else if (proxied) {
    add(429, { description: 'Too many requests from this client address (`rate_limited`); wait `Retry-After` seconds.' });
  }
  if (proxied) [405, 413, 502].forEach((status) => add(status));
  add(500);
  return errors;
}

function responseHeaders(route: PublicRoute, status: number, spec: ResponseSpec): Json {
  const headers: Json = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  if (route.scope !== null) {
    for (const [name, header] of Object.entries(RATE_LIMIT_HEADERS)) {
      if (status < 400 || AFTER_RATE_LIMIT.has(status)) headers[name] = ref('headers', name);
      else if (MAYBE_RATE_LIMITED.has(status))
        headers[name] = { ...header, description: `${header.description} Absent when refused before the account was known.` };
    }
  }
  if (status === 429 || status === 502 || status === 503) headers['Retry-After'] = ref('headers', 'Retry-After');
  if (status === 405) headers.Allow = ref('headers', 'Allow');
  for (const name of spec.headers ?? []) headers[name] = ref('headers', name);
  return headers;
}

function responseContent(status: number, spec: ResponseSpec) {
  if (status === 403) {
    return {
      'application/json': { schema: ref('schemas', 'Forbidden') },
      ...problemContent(403, spec.codes ?? ['account_inactive', 'insufficient_scope']),
    };
  }
  if (status >= 400) return problemContent(status, spec.codes ?? codesOf(status));
  if (spec.contentType) return { [spec.contentType]: { schema: { type: 'string' as const } } };
  return spec.schema ? { 'application/json': { schema: spec.schema } } : undefined;
}

function operationResponses(route: PublicRoute): Record<string, ResponseConfig> {
  const all = { ...genericErrors(route), ...route.responses };
  const responses: Record<string, ResponseConfig> = {};
  for (const status of Object.keys(all)
    .map(Number)
    .sort((a, b) => a - b)) {
    const spec = all[status]!;
    const content = responseContent(status, spec);
    responses[status] = {
      description: spec.description,
      headers: responseHeaders(route, status, spec),
      ...(content ? { content } : {}),
    } as ResponseConfig;
  }
  return responses;
}

function operationDescription(route: PublicRoute): string {
  const access = route.scope ? `Requires scope \`${route.scope}\`.` : 'Public, no key.';
  return route.description ? `${route.description}\n\n${access}` : access;
}

// ---------------------------------------------------------------------------------------------
// Webhooks: what the service sends to receivers (spec "Events").

const EventIdSchema = z.string().regex(EVENT_ID_PATTERN).openapi({ example: 'evt_5c1f0e4b0c0a4a7e9b4f5d2a8c6e1f30' });

function envelopeSchema<T extends z.ZodTypeAny, O extends z.ZodTypeAny>(type: T, object: O) {
  return z.object({
    id: EventIdSchema.openapi({
      description: 'Deduplication key: the same logical event has the same id in every retry and at every endpoint.',
    }),
    object: z.literal('event'),
    api_version: z.literal('v1').openapi({ description: 'Format version of the payload.' }),
    type,
    created_at: TimestampSchema.openapi({
      description: 'Moment of sending (a retry has a later one); use the session `completed_at` for when it happened.',
    }),
    data: z.object({ object }),
  });
}

const SessionEventSchema = envelopeSchema(z.enum(SESSION_EVENT_TYPES), VerificationSessionSchema).openapi('SessionEvent', {
  description:
    'Envelope of every `verification_session.*` event; `data.object` is the session as `GET /v1/verification-sessions/{id}` would return it, with `result` (personal data only with the project opt-in options). Endpoints receive test and live events alike: tell them apart by `data.object.mode`.',
});

/** `data.object` of a `test` event, as services/webhooks builds it. */
const WebhookTestObjectSchema = z
  .object({
    object: z.literal('webhook_test'),
    endpoint_id: idSchema('webhookEndpoint'),
    message: z.string(),
  })
  .openapi('WebhookTestObject');

const TestEventSchema = envelopeSchema(z.literal('test'), WebhookTestObjectSchema).openapi('TestEvent', {
  description: 'Sent by `POST /v1/webhook-endpoints/{id}/test`. Its id is random: each test is a new logical event.',
});

const SIGNATURE_DESCRIPTION = [
  '`t=<unix seconds>,v1=<hex>`: `v1` is the lowercase hex HMAC-SHA256 of the string `<t>.<raw body>` (the value of `t`, a dot, the body bytes exactly as received) keyed with the whole endpoint secret `whsec_…` as UTF-8.',
  'During a secret rotation (24 hours) there is one `v1=` per valid secret: accept the request when any matches.',
  'Verify on the raw body before parsing it, compare in constant time and refuse a `t` older than your tolerance (we suggest 5 minutes).',
].join(' ');

const EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'verification_session.approved':
    'The session was approved. Sent together with `verification_session.completed`: two events with two ids.',
  'verification_session.rejected':
    'At least one validator failed or ran out of attempts; the reasons are in `data.object.result.reason_codes`. Sent together with `verification_session.completed`.',
  'verification_session.completed':
    'Sent in addition to `approved` or `rejected`; never for expiry, abandonment or cancellation.',
  'verification_session.expired':
    'The link expired (`result.outcome` `expired`) or the person left the flow idle (`result.outcome` `abandoned`). No `completed` event follows.',
  'verification_session.canceled': 'The session was canceled with `POST /v1/verification-sessions/{id}/cancel`.',
  'verification_session.review_required': 'Declared and subscribable, but never emitted today.',
  'verification_session.created': 'Declared and subscribable, but never emitted today.',
  test: 'Sent by `POST /v1/webhook-endpoints/{id}/test`, once, with no retry, whatever the endpoint `events`. Accept it (2xx) or discard it explicitly; never process it as a session.',
};

const DELIVERY_RULES =
  'An event is sent only when both the project published configuration lists its type in `webhookEvents` and the endpoint lists it in `events`. Delivery is at least once and in no guaranteed order: deduplicate by `X-Service-Event-Id`. A failed attempt is retried with exponential backoff (10 s doubling, at most 8 attempts, about 21 minutes); test events and redeliveries are never retried.';

function operationIdOf(type: WebhookEventType): string {
  const camel = type.replace(/[._]([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return `${camel}Event`;
}

function registerWebhooks(registry: OpenAPIRegistry): void {
  // Schemas only webhooks use are not collected by the generator: register them.
  registry.register('SessionEvent', SessionEventSchema);
  registry.register('TestEvent', TestEventSchema);
  for (const type of [...SESSION_EVENT_TYPES, 'test'] as const) {
    const body =
      type === 'test'
        ? TestEventSchema
        : {
            allOf: [
              ref('schemas', 'SessionEvent'),
              { type: 'object' as const, properties: { type: { type: 'string' as const, const: type } } },
            ],
          };
    const neverEmitted = (NEVER_EMITTED_EVENT_TYPES as readonly string[]).includes(type);
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: operationIdOf(type),
      summary: neverEmitted ? `${type} (never emitted today)` : type,
      description: `${EVENT_DESCRIPTIONS[type]}\n\n${DELIVERY_RULES}`,
      tags: ['Webhook events'],
      security: [],
      request: {
        headers: z.object({
          'X-Service-Signature': z
            .string()
            .regex(/^t=\d+(,v1=[0-9a-f]{64})+$/)
            .openapi({
              description: SIGNATURE_DESCRIPTION,
              example: 't=1795867203,v1=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39',
            }),
          'X-Service-Event-Id': EventIdSchema.openapi({ description: 'The event `id`, as in the body.' }),
          'X-Service-Event-Type': z.literal(type).openapi({ description: 'The event `type`, as in the body.' }),
          'User-Agent': z
            .string()
            .regex(/^[a-z0-9-]+-webhooks\/\S+$/)
            .openapi({ description: 'The sender: `<name>-webhooks/<version>`.', example: 'idv-webhooks/0.1.0' }),
        }),
        body: {
          description: 'The event, `application/json; charset=utf-8`.',
          required: true,
          content: { 'application/json': { schema: body } },
        },
      },
      responses: {
        '2XX': {
          description: 'Delivered: any 2xx whose whole response arrives within 10 seconds. The body is discarded unread.',
        },
        '4XX': {
          description:
            'Refused (a bad signature, for instance): the attempt failed and is retried, except test events and redeliveries.',
        },
        default: {
          description: 'Any other answer fails the attempt too: a 3xx (never followed), a 5xx, a timeout or a network error.',
        },
      },
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Post-processing: defaults of request schemas become words.

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withNote(description: unknown, note: string): string {
  return typeof description === 'string' && description.length > 0 ? `${description.replace(/\.?$/, '.')} ${note}` : note;
}

/** Moves `default` into the description, so generated clients do not turn the field into a required one. */
function describeDefault(node: Json): string | undefined {
  if (!('default' in node)) return undefined;
  const note = `Default: ${JSON.stringify(node.default)}.`;
  delete node.default;
  node.description = withNote(node.description, note);
  return note;
}

function describeDefaultsInSchema(schema: unknown, components: Json, visited: Set<string>): void {
  if (!isObject(schema)) return;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    if (visited.has(name)) return;
    visited.add(name);
    describeDefaultsInSchema(components[name], components, visited);
    return;
  }
  describeDefault(schema);
  for (const key of ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else']) {
    describeDefaultsInSchema(schema[key], components, visited);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) {
    const list = schema[key];
    if (Array.isArray(list)) for (const item of list) describeDefaultsInSchema(item, components, visited);
  }
  for (const key of ['properties', 'patternProperties']) {
    const map = schema[key];
    if (isObject(map)) for (const value of Object.values(map)) describeDefaultsInSchema(value, components, visited);
  }
}

/** Request side only: parameters and request bodies of `paths`. */
function describeRequestDefaults(document: Json): void {
  const components = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
  const visited = new Set<string>();
  for (const pathItem of Object.values(document.paths as Json)) {
    for (const operation of Object.values(pathItem as Json)) {
      if (!isObject(operation)) continue;
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        if (!isObject(parameter.schema)) continue;
        const note = describeDefault(parameter.schema);
        if (note) parameter.description = withNote(parameter.description, note);
        describeDefaultsInSchema(parameter.schema, components, visited);
      }
      const content = ((operation.requestBody as Json | undefined)?.content ?? {}) as Json;
      for (const media of Object.values(content)) describeDefaultsInSchema((media as Json).schema, components, visited);
    }
  }
}

// ---------------------------------------------------------------------------------------------

/** Builds the OpenAPI 3.1 document of the public API from the route table and its zod schemas. */
export function buildOpenApiDocument(serverUrl: string, version: string): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description:
      '`Authorization: Bearer sk_test_…` or `sk_live_…`: the prefix selects the mode. A missing, unknown or revoked key gets 403 `{"message":"Forbidden"}`.',
  });
  registry.register('Problem', ProblemSchema);
  registry.register('Forbidden', ForbiddenSchema);
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent('headers', name, header);

  for (const route of PUBLIC_ROUTES) {
    if (!TAGS[route.tag]) throw new Error(`OpenAPI: tag "${route.tag}" of ${route.operationId} has no description`);
    const config: RouteConfig = {
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      description: operationDescription(route),
      security: route.scope ? [{ [bearer.name]: [] }] : [],
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(route.headers ? { headers: route.headers } : {}),
        ...(route.body ? { body: { content: { 'application/json': { schema: route.body } }, required: true } } : {}),
      },
      responses: operationResponses(route),
    };
    registry.registerPath(config);
  }
  registerWebhooks(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Identity verification API (Argentina)',
      version,
      description: [
        'Create verification sessions, receive signed webhook events, read usage.',
        `Errors other than the gateway 403 for a refused key are \`application/problem+json\`; program against \`code\` (${ERRORS_DOC_URL}). Every response carries \`X-Request-Id\`; authenticated ones carry \`RateLimit-*\`.`,
      ].join('\n\n'),
      contact: { name: 'IDV API support', url: 'https://docs.idv.example/support', email: 'support@idv.example' },
      license: { name: 'Proprietary', url: 'https://docs.idv.example/terms' },
    },
    servers: [{ url: serverUrl }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
  }) as unknown as Json;
  describeRequestDefaults(document);
  return document;
}
