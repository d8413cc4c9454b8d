import { TimestampSchema } from './common';
import { artefactIdSchema, idSchema } from './ids';
import { SESSION_EVENT_TYPES } from './event-types';
import { z } from './zod';

export { SESSION_EVENT_TYPES };

export type SessionEventType = (typeof SESSION_EVENT_TYPES)[number];
export const SessionEventTypeSchema = z.enum(SESSION_EVENT_TYPES);

/** Declared and subscribable, but no emitter publishes them (spec "Event types"). */
export const NEVER_EMITTED_EVENT_TYPES: readonly SessionEventType[] = [
  'verification_session.review_required',
  'verification_session.created',
];

/** Every type an endpoint can subscribe to: the session events plus `test`. */
export const WEBHOOK_EVENT_TYPES = [...SESSION_EVENT_TYPES, 'test'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);

/** Routing keys of internal domain events on the broker's topic exchange. */
export const DOMAIN_EVENTS = {
  apiKeyRevoked: 'api_key.revoked',
  accountStatusChanged: 'account.status_changed',
  /** The flow-runner stored a capture to read: a durable job for its verification workers. */
  captureStored: 'capture.stored',
  /** The flow-runner stored the frames of a face attempt: a durable job for its face workers. */
  faceFramesStored: 'face.frames_stored',
  /** A debit took an account's balance below its low-balance threshold (once per crossing; the dashboard mails the owners). */
  balanceLow: 'balance.low',
  /** A debit spent an account's last token: live sessions are refused with 402 until a credit. */
  balanceDepleted: 'balance.depleted',
  /** An endpoint's circuit opened after consecutive failures (once per outage; the dashboard mails the owners). */
  webhookCircuitOpened: 'webhook_endpoint.circuit_opened',
  /** A delivery succeeded to an endpoint whose circuit had opened: the outage is over. */
  webhookCircuitClosed: 'webhook_endpoint.circuit_closed',
} as const;

/** The internal events' types: the values of `DOMAIN_EVENTS`. */
export type InternalEventType = (typeof DOMAIN_EVENTS)[keyof typeof DOMAIN_EVENTS];

/**
 * Every type a domain event on the broker can have (a closed set): the internal events and the session
 * events. A new type is added here, with its data schema and its constructor in `domain-events.ts`.
 */
export const DOMAIN_EVENT_TYPES = [
  DOMAIN_EVENTS.apiKeyRevoked,
  DOMAIN_EVENTS.accountStatusChanged,
  DOMAIN_EVENTS.captureStored,
  DOMAIN_EVENTS.faceFramesStored,
  DOMAIN_EVENTS.balanceLow,
  DOMAIN_EVENTS.balanceDepleted,
  DOMAIN_EVENTS.webhookCircuitOpened,
  DOMAIN_EVENTS.webhookCircuitClosed,
  ...SESSION_EVENT_TYPES,
] as const satisfies readonly (InternalEventType | SessionEventType)[];
export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];

/**
 * Envelope of every message on the broker (docs/design.md "Messaging"): `id` is the deduplication key,
 * `type` doubles as the routing key. Build one with its type's constructor (`domainEvents` in
 * `domain-events.ts`).
 */
export const DomainEventSchema = z.object({
  id: z.string().min(1),
  type: z.enum(DOMAIN_EVENT_TYPES),
  occurred_at: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type DomainEvent<T = Record<string, unknown>, K extends DomainEventType = DomainEventType> = {
  id: string;
  type: K;
  occurred_at: string;
  data: T;
};

export const ApiKeyRevokedDataSchema = z.object({
  key_id: idSchema('apiKey'),
  account_id: idSchema('account'),
  secret_hash: z.string(),
});
export type ApiKeyRevokedData = z.infer<typeof ApiKeyRevokedDataSchema>;
export const AccountStatusChangedDataSchema = z.object({ account_id: idSchema('account'), status: z.string() });
export type AccountStatusChangedData = z.infer<typeof AccountStatusChangedDataSchema>;
/** A capture waiting to be read; the job is idempotent by `artefact_id`. */
export const CaptureStoredDataSchema = z.object({
  session_id: idSchema('session'),
  step_id: z.string(),
  artefact_id: artefactIdSchema(),
  kind: z.enum(['front', 'back', 'front_angle', 'selfie']),
  doc_type: z.enum(['dni', 'passport', 'licence']).optional(),
  accepted_types: z.array(z.enum(['dni', 'passport', 'licence'])).optional(),
});
export type CaptureStoredData = z.infer<typeof CaptureStoredDataSchema>;
/** A face attempt's frames waiting to be judged; the job is idempotent by `artefact_id`. */
export const FaceFramesStoredDataSchema = z.object({
  session_id: idSchema('session'),
  step_id: z.string(),
  artefact_id: artefactIdSchema(),
});
export type FaceFramesStoredData = z.infer<typeof FaceFramesStoredDataSchema>;
/**
 * An account's balance crossed an alert line (`balance.low`, `balance.depleted`): the balance after the
 * debit, the threshold in force (the owner's, else 3 days at the last 7 days' pace) and where it came from.
 */
export const BalanceAlertDataSchema = z.object({
  account_id: idSchema('account'),
  balance: z.number().int().min(0),
  threshold: z.number().int().min(0),
  threshold_source: z.enum(['owner', 'default']),
});
export type BalanceAlertData = z.infer<typeof BalanceAlertDataSchema>;
/**
 * An endpoint's circuit changed state: `at` when it did; `next_attempt_at` when deliveries are tried again
 * (the end of the open period; null once closed).
 */
export const WebhookCircuitDataSchema = z.object({
  account_id: idSchema('account'),
  endpoint_id: idSchema('webhookEndpoint'),
  url: z.string(),
  at: TimestampSchema,
  next_attempt_at: TimestampSchema.nullable(),
});
export type WebhookCircuitData = z.infer<typeof WebhookCircuitDataSchema>;

/** The session events some operation emits today: what a project usually lists in `webhookEvents`. */
export const EMITTED_SESSION_EVENT_TYPES: readonly SessionEventType[] = SESSION_EVENT_TYPES.filter(
  (type) => !NEVER_EMITTED_EVENT_TYPES.includes(type),
);
