import { scrapeRead, type Metrics, type Pool } from '@idv/kit';
import type { DeliveryMetrics } from '../domain/ports';
import { countEnabledEndpoints, countOpenCircuits } from './endpoints.repository';
import { countWaiting } from './messages.repository';

/** Deliveries by outcome and error, attempt latency, messages waiting, open circuits. */
export function webhookMetrics(metrics: Metrics, pool: Pool): DeliveryMetrics {
  const deliveries = metrics.counter('webhook_deliveries_total', 'Delivery attempts by kind, outcome and error', [
    'kind',
    'outcome',
    'error',
  ] as const);
  const latency = metrics.histogram(
    'webhook_attempt_duration_seconds',
    'Duration of delivery attempts that sent a request, by outcome',
    ['outcome'] as const,
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const firstSuccess = metrics.histogram(
    'webhook_event_to_delivery_seconds',
    "From an event's creation to its endpoint's first 2xx (automatic deliveries)",
    [] as const,
    [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
  );
  // A failed or slow read keeps a gauge's last value: the scrape never fails because the database does.
  const waiting = scrapeRead(() => countWaiting(pool));
  const open = scrapeRead(() => countOpenCircuits(pool));
  const enabled = scrapeRead(() => countEnabledEndpoints(pool));
  metrics.gauge('webhook_messages_waiting', 'Messages scheduled and not yet delivered, dead or canceled', [], async function () {
    const count = await waiting();
    if (count !== null) this.set(count);
  });
  metrics.gauge('webhook_open_circuits', 'Endpoints whose circuit is open', [], async function () {
    const count = await open();
    if (count !== null) this.set(count);
  });
  metrics.gauge('webhook_endpoints_enabled', 'Endpoints that receive events (active, not deleted)', [], async function () {
    const count = await enabled();
    if (count !== null) this.set(count);
  });
  return {
    recordAttempt(labels, seconds) {
      deliveries.inc({ kind: labels.kind, outcome: labels.outcome, error: labels.error ?? 'none' });
      if (seconds !== null) latency.observe({ outcome: labels.outcome }, seconds);
    },
    recordFirstSuccess(seconds) {
      firstSuccess.observe(Math.max(0, seconds));
    },
  };
}
