import type { AccountId, EventId, WebhookDeliveryId, WebhookEndpointId, WebhookEventType } from '@idv/contracts';
import type { DeliveryError, DeliveryStatus, MessageId } from './message';

/** One line of the delivery log: one attempt (the receiver's body is never kept). */
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
