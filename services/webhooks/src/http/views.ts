import type {
  AccountWebhookEndpoint,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
  WebhookEndpointId,
  WebhookHealth,
  WebhookHealthWindow,
  WebhookRetry,
} from '@idv/contracts';
import type { DeliveryRecord } from '../domain/delivery';
import type { EndpointRecord } from '../domain/endpoint';
import type { EndpointHealth, HealthWindow } from '../domain/health';
import { retryState, type RetryJobRecord } from '../domain/retry';
import type { DeliveryAttempt } from '../use-cases/delivery-log';
import type { EndpointState } from '../use-cases/endpoint-state';

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

/** An endpoint as the account's dashboard sees it: with its circuit, what waits for it, and a rotation's overlap. */
export function toAccountEndpoint(record: EndpointRecord, state: EndpointState): AccountWebhookEndpoint {
  const { secret: _never, ...endpoint } = toEndpoint(record);
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  return {
    ...endpoint,
    state: {
      circuit: {
        state: state.circuit.state,
        open_until: iso(state.circuit.openUntil),
        consecutive_failures: state.circuit.consecutiveFailures,
      },
      waiting: state.waiting,
      next_attempt_at: iso(state.nextAttemptAt),
      previous_secret_expires_at: iso(state.previousSecretExpiresAt),
    },
  };
}

/** One attempt with its request as sent and the receiver's reply. */
export function toDeliveryAttempt(attempt: DeliveryAttempt): WebhookDeliveryAttempt {
  const { request, response } = attempt;
  return {
    ...toDelivery(attempt.delivery),
    request: request
      ? { sent_at: request.sentAt.toISOString(), headers: request.headers, body: request.body, body_as_sent: request.bodyAsSent }
      : null,
    response: response ? { headers: response.headers, body: response.body, body_bytes: response.bodyBytes } : null,
  };
}

/** A retry with its progress. */
export function toRetry(job: RetryJobRecord): WebhookRetry {
  return {
    id: job.id,
    object: 'webhook_retry',
    endpoint_id: job.endpointId,
    from: job.from.toISOString(),
    to: job.to.toISOString(),
    state: retryState(job.progress),
    total: job.total,
    done: job.progress.sent,
    failed: job.progress.failed,
    canceled: job.progress.canceled,
    per_second: Math.round((1000 / job.intervalMs) * 100) / 100,
    created_at: job.createdAt.toISOString(),
  };
}

function toHealthWindow(window: HealthWindow): WebhookHealthWindow {
  const figures = (f: { attempts: number; succeeded: number; successRate: number | null; p95Ms: number | null }) => ({
    attempts: f.attempts,
    succeeded: f.succeeded,
    success_rate: f.successRate,
    p95_ms: f.p95Ms,
  });
  return {
    from: window.from.toISOString(),
    ...figures(window),
    buckets: window.buckets.map((bucket) => ({ start: bucket.start.toISOString(), ...figures(bucket) })),
  };
}

export function toEndpointHealth(endpointId: WebhookEndpointId, health: EndpointHealth): WebhookHealth {
  return {
    endpoint_id: endpointId,
    at: health.at.toISOString(),
    last_24h: toHealthWindow(health.last24h),
    last_7d: toHealthWindow(health.last7d),
  };
}
