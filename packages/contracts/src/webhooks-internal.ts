import { PaginationQuerySchema, TimestampSchema } from './common';
import { WebhookEventTypeSchema } from './events';
import { idSchema } from './ids';
import { DELIVERY_STATUSES, WebhookDeliverySchema, WebhookEndpointSchema } from './webhooks';
import { z } from './zod';

/**
 * The dashboard's view of webhooks (internal routes of the webhooks service, by account): the public
 * shapes with what only the account's own pages show (the circuit, the overlap of a rotation, the request
 * and response of an attempt). Never in the OpenAPI document.
 */

/** `half_open`: the open period is over and the next attempt is a trial (a success closes the circuit). */
export const CIRCUIT_STATES = ['closed', 'open', 'half_open'] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];

export const WebhookEndpointStateSchema = z.object({
  circuit: z.object({
    state: z.enum(CIRCUIT_STATES),
    /** Until when automatic attempts are skipped (past when half-open). */
    open_until: TimestampSchema.nullable(),
    consecutive_failures: z.number().int().min(0),
  }),
  /** Messages waiting for this endpoint, and when the earliest will be tried. */
  waiting: z.number().int().min(0),
  next_attempt_at: TimestampSchema.nullable(),
  /** While a rotation's overlap lasts, the previous secret signs too, until then. */
  previous_secret_expires_at: TimestampSchema.nullable(),
});
export type WebhookEndpointState = z.infer<typeof WebhookEndpointStateSchema>;

/** An endpoint with its state (never its secret, except in the answers of creation and rotation). */
export const AccountWebhookEndpointSchema = WebhookEndpointSchema.omit({ secret: true }).extend({
  state: WebhookEndpointStateSchema,
});
export type AccountWebhookEndpoint = z.infer<typeof AccountWebhookEndpointSchema>;
/** Creation and rotation: the one answer that carries the complete secret. */
export const AccountWebhookEndpointWithSecretSchema = AccountWebhookEndpointSchema.extend({ secret: z.string() });
export const AccountWebhookEndpointListSchema = z.object({
  object: z.literal('list'),
  data: z.array(AccountWebhookEndpointSchema),
  has_more: z.boolean(),
  next_cursor: z.string().optional(),
});
export const DeletedWebhookEndpointSchema = z.object({ id: idSchema('webhookEndpoint'), deleted: z.literal(true) });

/** The delivery log of one endpoint, filtered (each filter optional, all together). */
export const WebhookDeliveryLogQuerySchema = PaginationQuerySchema.extend({
  status: z.enum(DELIVERY_STATUSES).optional(),
  event_type: WebhookEventTypeSchema.optional(),
  session_id: idSchema('session').optional(),
  /** Recorded at or after. */
  from: TimestampSchema.optional(),
  /** Recorded before. */
  to: TimestampSchema.optional(),
});
export type WebhookDeliveryLogQuery = z.input<typeof WebhookDeliveryLogQuerySchema>;
export const WebhookDeliveryLogSchema = z.object({
  object: z.literal('list'),
  data: z.array(WebhookDeliverySchema),
  has_more: z.boolean(),
  next_cursor: z.string().optional(),
});

/** One attempt with what it sent and what came back (null: nothing was sent, or logged before these were kept). */
export const WebhookDeliveryAttemptSchema = WebhookDeliverySchema.extend({
  request: z
    .object({
      sent_at: TimestampSchema,
      /** As sent, `x-service-signature` included. */
      headers: z.record(z.string(), z.string()),
      /** The envelope POSTed, byte for byte (null when its event is no longer stored). */
      body: z.string().nullable(),
      /** False when retention removed the event's document data after this attempt: the body shown lacks it. */
      body_as_sent: z.boolean(),
    })
    .nullable(),
  response: z
    .object({
      headers: z.record(z.string(), z.string()),
      /** The first 4,096 bytes at most, cut before a split UTF-8 character. */
      body: z.string(),
      /** The size of the whole body received. */
      body_bytes: z.number().int().min(0),
    })
    .nullable(),
});
export type WebhookDeliveryAttempt = z.infer<typeof WebhookDeliveryAttemptSchema>;

/** The longest time range one retry of failed deliveries may cover. */
export const WEBHOOK_RETRY_MAX_RANGE_DAYS = 31;

/**
 * "Retry every failed delivery in a time range": each event of the endpoint whose latest attempt in
 * [from, to) failed and that has not succeeded since is sent once more, at the service's pace.
 */
export const StartWebhookRetryBodySchema = z
  .object({
    /** Attempts recorded at or after. */
    from: TimestampSchema,
    /** Attempts recorded before. */
    to: TimestampSchema,
  })
  .strict()
  .superRefine((body, ctx) => {
    const from = Date.parse(body.from);
    const to = Date.parse(body.to);
    if (!(from < to)) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
    else if (to - from > WEBHOOK_RETRY_MAX_RANGE_DAYS * 86_400_000) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `must be at most ${WEBHOOK_RETRY_MAX_RANGE_DAYS} days after from` });
    }
  });
export type StartWebhookRetryBody = z.input<typeof StartWebhookRetryBodySchema>;

export const WEBHOOK_RETRY_STATES = ['running', 'finished'] as const;

/** A retry and how far it got: `done` of `total` sent (whatever the answer), `failed` of those; `canceled` were not sent. */
export const WebhookRetrySchema = z.object({
  id: idSchema('webhookRetry'),
  object: z.literal('webhook_retry'),
  endpoint_id: idSchema('webhookEndpoint'),
  from: TimestampSchema,
  to: TimestampSchema,
  /** `running` while some of its events wait to be sent. */
  state: z.enum(WEBHOOK_RETRY_STATES),
  total: z.number().int().min(0),
  done: z.number().int().min(0),
  failed: z.number().int().min(0),
  /** Not sent: the endpoint was disabled or deleted meanwhile. */
  canceled: z.number().int().min(0),
  /** The pace it is sent at, per second. */
  per_second: z.number().positive(),
  created_at: TimestampSchema,
});
export type WebhookRetry = z.infer<typeof WebhookRetrySchema>;
export const WebhookRetryListSchema = z.object({ object: z.literal('list'), data: z.array(WebhookRetrySchema) });

/** An endpoint's attempts in one hour or one day (Argentina's), circuit skips left out (nothing was sent). */
export const WebhookHealthBucketSchema = z.object({
  start: TimestampSchema,
  attempts: z.number().int().min(0),
  succeeded: z.number().int().min(0),
  /** Null when there was no attempt. */
  success_rate: z.number().min(0).max(1).nullable(),
  /** Of the attempts that got an answer (an HTTP status); null when none did. */
  p95_ms: z.number().int().min(0).nullable(),
});
export const WebhookHealthWindowSchema = WebhookHealthBucketSchema.omit({ start: true }).extend({
  from: TimestampSchema,
  buckets: z.array(WebhookHealthBucketSchema),
});
export type WebhookHealthWindow = z.infer<typeof WebhookHealthWindowSchema>;
/** An endpoint's health: the current hour and the 23 before it, by hour; today and the 6 days before it (Argentina), by day. */
export const WebhookHealthSchema = z.object({
  endpoint_id: idSchema('webhookEndpoint'),
  at: TimestampSchema,
  last_24h: WebhookHealthWindowSchema,
  last_7d: WebhookHealthWindowSchema,
});
export type WebhookHealth = z.infer<typeof WebhookHealthSchema>;
