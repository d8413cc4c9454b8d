import type { AccountId, DELIVERY_ERRORS, EventId, WebhookDeliveryId, WebhookEndpointId, WebhookEventType } from '@idv/contracts';
import type { EndpointStatus } from './endpoint';
import type { AttemptExchange } from './exchange';

/** Internal: messages are never public (the database makes their ids). */
export type MessageId = `msg_${string}`;

/**
 * `event`: the automatic delivery of a session event (retried); `test` and `redeliver`: one attempt asked for;
 * `retry`: one attempt of a retry of failed deliveries (paced, and waits while the circuit is open).
 */
export type MessageKind = 'event' | 'test' | 'redeliver' | 'retry';

export type DeliveryError = (typeof DELIVERY_ERRORS)[number];
export type MessageStatus = 'pending' | 'succeeded' | 'failed' | 'dead';
export type DeliveryStatus = 'succeeded' | 'failed' | 'dead';

/** A due message this replica claimed, with what its attempt needs of the event and the endpoint. */
export interface ClaimedMessage {
  id: MessageId;
  accountId: AccountId;
  endpointId: WebhookEndpointId;
  eventId: EventId;
  kind: MessageKind;
  attempts: number;
  lastWaitMs: number | null;
  eventType: WebhookEventType;
  eventData: Record<string, unknown>;
  /** When the event occurred (its envelope's `occurred_at`). */
  eventOccurredAt: Date;
  /** The frozen configuration opted in to evidence links: they are made at each attempt. */
  evidenceLinks: boolean;
  url: string;
  endpointStatus: EndpointStatus;
  endpointDeleted: boolean;
  secretEnc: string;
  /** Only while the rotation's grace period lasts. */
  previousSecretEnc: string | null;
  circuitOpen: boolean;
  consecutiveFailures: number;
  /** The circuit opened and no success has come since (open, or past its period): a success closes it. */
  circuitTripped: boolean;
  /** The claim this replica holds: a record is written only while it still holds it. */
  claimToken: string;
  /** W3C trace context of what queued the message: each attempt is traced in it (and never sends it). */
  traceContext?: { traceparent: string; tracestate: string | null } | null;
}

/** One attempt to log and how it moves its message on. */
export interface AttemptRecord {
  messageId: MessageId;
  claimToken: string;
  deliveryId: WebhookDeliveryId;
  eventType: WebhookEventType;
  /** The attempt number logged (the n-th real attempt, or the one that was due). */
  attempt: number;
  /** New value of the message's attempt count. */
  attemptsUsed: number;
  messageStatus: MessageStatus;
  /** Set when the message is due again after this wait. */
  waitMs: number | null;
  deliveryStatus: DeliveryStatus;
  httpStatus: number | null;
  durationMs: number | null;
  error: DeliveryError | null;
  failureReason: string | null;
  /** What was sent and what came back; null when nothing was sent (the circuit was open). */
  exchange: AttemptExchange | null;
}

/** A successful automatic attempt: the message is done (recorded in batches, the hot path). */
export interface SuccessRecord {
  messageId: MessageId;
  claimToken: string;
  deliveryId: WebhookDeliveryId;
  eventType: WebhookEventType;
  attempt: number;
  httpStatus: number;
  durationMs: number;
  exchange: AttemptExchange;
}
