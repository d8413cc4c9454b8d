import { TimestampSchema, listSchema } from './common';
import { WebhookEventTypeSchema } from './events';
import { idSchema } from './ids';
import { storableString } from './text';
import { z } from './zod';

export const ENDPOINT_STATUSES = ['active', 'disabled'] as const;

const EventListSchema = z
  .array(WebhookEventTypeSchema)
  .min(1)
  .max(16)
  .refine((events) => new Set(events).size === events.length, 'must not repeat an event type');

export const WebhookEndpointSchema = z
  .object({
    id: idSchema('webhookEndpoint'),
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    events: z.array(WebhookEventTypeSchema),
    status: z.enum(ENDPOINT_STATUSES),
    description: z.string(),
    secret: z.string().optional().openapi({ description: 'complete only in the creation and rotation responses' }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi('WebhookEndpoint');
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;
export const WebhookEndpointListSchema = listSchema(WebhookEndpointSchema, 'WebhookEndpointList');

export const CreateWebhookEndpointBodySchema = z
  .strictObject({
    url: storableString().url().max(2048),
    events: EventListSchema,
    description: storableString().max(500).default(''),
  })
  .openapi('CreateWebhookEndpoint');

export const UpdateWebhookEndpointBodySchema = z
  .strictObject({
    url: storableString().url().max(2048).optional(),
    events: EventListSchema.optional(),
    description: storableString().max(500).optional(),
    status: z.enum(ENDPOINT_STATUSES).optional(),
  })
  .openapi('UpdateWebhookEndpoint');

export const DELIVERY_STATUSES = ['succeeded', 'failed', 'dead'] as const;
export const DELIVERY_ERRORS = [
  'circuit_breaker_open',
  'timeout',
  'redirect',
  'disallowed_address',
  'connection_refused',
  'connection_reset',
  'dns_failure',
  'http_status',
  'network_error',
] as const;

export const WebhookDeliverySchema = z
  .object({
    id: idSchema('webhookDelivery'),
    object: z.literal('webhook_delivery'),
    endpoint_id: idSchema('webhookEndpoint'),
    event_id: z.string(),
    event_type: WebhookEventTypeSchema,
    attempt: z.number().int(),
    status: z.enum(DELIVERY_STATUSES),
    http_status: z.number().int().nullable(),
    duration_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    failure_reason: z.string().nullable(),
    created_at: TimestampSchema,
  })
  .openapi('WebhookDelivery');
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
export const WebhookDeliveryListSchema = listSchema(WebhookDeliverySchema, 'WebhookDeliveryList');

/** The envelope POSTed to receivers (spec "Events"). */
export const WebhookEventEnvelopeSchema = z
  .object({
    id: z.string(),
    object: z.literal('event'),
    api_version: z.literal('v1'),
    type: WebhookEventTypeSchema,
    created_at: TimestampSchema,
    data: z.object({ object: z.record(z.string(), z.unknown()) }),
  })
  .openapi('Event');

/**
 * Whether an account's webhooks are ready for live traffic (the dashboard's go-live checklist): its
 * endpoints subscribed to the verdict events, and whether one of them answered a test event with 2xx.
 */
export const WebhookReadinessSchema = z.object({
  account_id: idSchema('account'),
  verdict_endpoints: z.number().int().min(0),
  verdict_endpoint_answered_test: z.boolean(),
});
export type WebhookReadiness = z.infer<typeof WebhookReadinessSchema>;
