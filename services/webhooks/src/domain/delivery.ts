import type {
  AccountId,
  EventId,
  EvidenceLink,
  SessionId,
  WebhookDeliveryId,
  WebhookEndpointId,
  WebhookEventType,
} from '@idv/contracts';
import type { DeliveryError, DeliveryStatus, MessageId } from './message';

/** One line of the delivery log: one attempt (what it sent and received is in `DeliveryExchangeRecord`). */
export interface DeliveryRecord {
  id: WebhookDeliveryId;
  accountId: AccountId;
  endpointId: WebhookEndpointId;
  messageId: MessageId;
  eventId: EventId;
  eventType: WebhookEventType;
  attempt: number;
  status: DeliveryStatus;
  httpStatus: number | null;
  durationMs: number | null;
  error: DeliveryError | null;
  failureReason: string | null;
  createdAt: Date;
}

/**
 * What one attempt sent and received, as stored (null on attempts that sent nothing and on those logged
 * before release 1796410000000), with the event its body is rebuilt from.
 */
export interface DeliveryExchangeRecord {
  sentAt: Date | null;
  requestHeaders: Record<string, string> | null;
  evidenceLinks: EvidenceLink[] | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  responseBodyBytes: number | null;
  /** The event as stored now (null if it is gone). */
  eventData: Record<string, unknown> | null;
}

/** The delivery log's filters (each optional, all together). */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: WebhookEventType;
  /** The attempts of this session's events. */
  sessionId?: SessionId;
  /** Recorded at or after. */
  from?: Date;
  /** Recorded before. */
  to?: Date;
}
