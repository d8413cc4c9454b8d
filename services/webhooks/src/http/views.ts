import type { WebhookDelivery, WebhookEndpoint } from '@idv/contracts';
import type { DeliveryRecord } from '../domain/delivery';
import type { EndpointRecord } from '../domain/endpoint';

/** Public shape of an endpoint; the secret only when given (creation and rotation). */
export function toEndpoint(record: EndpointRecord, secret?: string): WebhookEndpoint {
  return {
    id: record.id,
    object: 'webhook_endpoint',
    url: record.url,
    events: record.events,
    status: record.status,
    description: record.description,
    ...(secret ? { secret } : {}),
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}

export function toDelivery(record: DeliveryRecord): WebhookDelivery {
  return {
    id: record.id,
    object: 'webhook_delivery',
    endpoint_id: record.endpointId,
    event_id: record.eventId,
    event_type: record.eventType,
    attempt: record.attempt,
    status: record.status,
    http_status: record.httpStatus,
    duration_ms: record.durationMs,
    error: record.error,
    failure_reason: record.failureReason,
    created_at: record.createdAt.toISOString(),
  };
}
