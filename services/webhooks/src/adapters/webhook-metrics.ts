import type { Metrics, Pool } from '@idv/kit';
import type { DeliveryMetrics } from '../domain/ports';
import { countOpenCircuits } from './endpoints.repository';
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
  metrics.gauge('webhook_messages_waiting', 'Messages scheduled and not yet delivered, dead or canceled', [], async function () {
    this.set(await countWaiting(pool).catch(() => 0));
  });
  metrics.gauge('webhook_open_circuits', 'Endpoints whose circuit is open', [], async function () {
    this.set(await countOpenCircuits(pool).catch(() => 0));
  });
  return {
    recordAttempt(labels, seconds) {
      deliveries.inc({ kind: labels.kind, outcome: labels.outcome, error: labels.error ?? 'none' });
      if (seconds !== null) latency.observe({ outcome: labels.outcome }, seconds);
    },
  };
}
