import type { WebhookDelivery, WebhookEndpoint } from '@idv/contracts';
import type { DeliveryRow, EndpointRow } from '../adapters/webhooks.repository';

/** Public shape of an endpoint; the secret only when given (creation and rotation). */
export function toEndpoint(row: EndpointRow, secret?: string): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    events: row.events,
    status: row.status,
    description: row.description,
    ...(secret ? { secret } : {}),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    object: 'webhook_delivery',
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: row.attempt,
    status: row.status,
    http_status: row.http_status,
    duration_ms: row.duration_ms,
    error: row.error,
    failure_reason: row.failure_reason,
    created_at: row.created_at.toISOString(),
  };
}
