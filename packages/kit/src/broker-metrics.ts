import type { Counter, Gauge } from 'prom-client';
import type { Metrics } from './metrics';

/** How a delivered message left the consumer: acked, queued again, dead-lettered, or dropped (no dead-letter queue). */
export type SettleOutcome = 'ack' | 'requeue' | 'dead_letter' | 'reject';

/** The broker's own count of a queue (ready messages, consumers), as `checkQueue` answers. */
export interface QueueStats {
  ready: number;
  consumers: number;
}

/**
 * The consumer side of the broker, per queue (the consumer's queue name without the namespace): what
 * this replica took and how it settled it, what it holds unsettled, and at each scrape the broker's
 * own count of ready messages and consumers of each queue it consumes (and of its dead-letter queue).
 */
export class BrokerMetrics {
  private readonly consumed: Counter<'queue' | 'outcome'>;
  private readonly redelivered: Counter<'queue'>;
  private readonly deadLettered: Counter<'queue'>;
  private readonly unacked: Gauge<'queue'>;

  constructor(metrics: Metrics, queues: () => Promise<Map<string, QueueStats> | null>) {
    this.consumed = metrics.counter('amqp_messages_consumed_total', 'Messages this replica consumed, by how it settled them', [
      'queue',
      'outcome',
    ] as const);
    this.redelivered = metrics.counter(
      'amqp_messages_redelivered_total',
      'Deliveries the broker flagged as redelivered (a consumer before did not settle them)',
      ['queue'] as const,
    );
    this.deadLettered = metrics.counter(
      'amqp_messages_dead_lettered_total',
      'Messages this replica sent to the dead-letter queue',
      ['queue'] as const,
    );
    this.unacked = metrics.gauge('amqp_messages_unacked', 'Deliveries handed to a handler of this replica and not settled yet', [
      'queue',
    ] as const);
    metrics.gauge(
      'amqp_queue_messages_ready',
      'Messages ready in a queue, as the broker counts them',
      ['queue'] as const,
      async function () {
        for (const [queue, stats] of (await queues()) ?? []) this.set({ queue }, stats.ready);
      },
    );
    metrics.gauge(
      'amqp_queue_consumers',
      'Consumers of a queue, as the broker counts them',
      ['queue'] as const,
      async function () {
        for (const [queue, stats] of (await queues()) ?? []) this.set({ queue }, stats.consumers);
      },
    );
  }

  delivered(queue: string, redelivered: boolean): void {
    this.unacked.inc({ queue });
    if (redelivered) this.redelivered.inc({ queue });
  }

  /** The delivery left the handler: settled as `outcome`, or null when settling failed (the broker redelivers it). */
  settled(queue: string, outcome: SettleOutcome | null): void {
    this.unacked.dec({ queue });
    if (outcome === null) return;
    this.consumed.inc({ queue, outcome });
    if (outcome === 'dead_letter') this.deadLettered.inc({ queue });
  }
}
