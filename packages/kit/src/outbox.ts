import type pg from 'pg';
import type { Broker, EventEnvelope } from './broker';
import type { Queryable } from './db';
import { BackgroundJob } from './jobs/background-job';
import { RetentionJob, type RetentionRule } from './jobs/retention';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { watchOutbox } from './outbox-metrics';
import { currentTraceHeaders, withTraceHeaders } from './tracing';

const NOTIFY_CHANNEL = 'outbox_new';

/**
 * The outbox part of a statement: CTE `queued` inserts the events (five parameters from `$first`,
 * values from `outboxParams`: the events and the trace context of the transaction writing them), only
 * when the CTE named `guard` produced a row if one is named; CTE `woken` wakes the relay at commit (the
 * statement must read it, e.g. `(SELECT count(*) FROM woken)`).
 * A repeated event id is ignored, so re-running a transition never duplicates an event.
 */
export function outboxCtes(first: number, guard?: string): string {
  return `queued AS (
       INSERT INTO outbox (event_id, routing_key, payload, traceparent, tracestate)
       SELECT e.*, $${first + 3}::text, $${first + 4}::text
         FROM unnest($${first}::text[], $${first + 1}::text[], $${first + 2}::jsonb[]) AS e
       ${guard ? `WHERE EXISTS (SELECT 1 FROM ${guard})` : ''}
       ON CONFLICT (event_id) DO NOTHING
       RETURNING 1),
     woken AS (SELECT pg_notify('${NOTIFY_CHANNEL}', current_schema()) FROM queued LIMIT 1)`;
}

export function outboxParams(events: readonly EventEnvelope[]): [string[], string[], string[], string | null, string | null] {
  // The relay publishes the rows later, outside any request: the row keeps the trace it belongs to.
  const trace = currentTraceHeaders();
  return [
    events.map((e) => e.id),
    events.map((e) => e.type),
    events.map((e) => JSON.stringify(e)),
    trace?.traceparent ?? null,
    trace?.tracestate ?? null,
  ];
}

/**
 * Writes events in the caller's transaction (or alone), in order; they reach the broker only if that
 * transaction commits. One statement: the rows and the relay's wake-up.
 */
export async function enqueueEvents(client: Queryable, events: readonly EventEnvelope[]): Promise<void> {
  if (events.length === 0) return;
  await client.query(`WITH ${outboxCtes(1)} SELECT count(*) FROM woken`, outboxParams(events));
}

export function enqueueEvent(client: Queryable, event: EventEnvelope): Promise<void> {
  return enqueueEvents(client, [event]);
}

export interface OutboxRelayOptions {
  pool: pg.Pool;
  broker: Broker;
  logger: Logger;
  metrics?: Metrics;
  schema: string;
  batchSize?: number;
  pollIntervalMs?: number;
  /** Published rows are kept this long for audit, then deleted. */
  retentionHours?: number;
  /** How long a pass owns the rows it claimed; the broker's confirms are awaited for half of it. */
  claimMs?: number;
}

const DEFAULT_BATCH_SIZE = 200;
const DEFAULT_CLAIM_MS = 30_000;
const CLEANUP_EVERY_MS = 60_000;
const CLEANUP_BATCH = 1000;

class ConfirmTimeout extends Error {
  constructor(ms: number) {
    super(`the broker did not confirm the batch within ${ms} ms`);
  }
}

/**
 * Publishes outbox rows with publisher confirms and marks them published: the kit's background job
 * `outbox-relay`, woken by NOTIFY, with a poll as a safety net. A pass claims a batch for `claimMs`
 * (`FOR UPDATE SKIP LOCKED` inside one statement, so replicas never take the same rows), publishes it,
 * and marks it published: two statements, and no transaction held open while the broker confirms.
 * While the broker is down rows simply wait: nothing is lost, nothing is marked published unconfirmed.
 * Published rows past `retentionHours` go through the kit's retention sweep (job `outbox-retention`).
 */
export class OutboxRelay {
  private readonly relay: BackgroundJob;
  private readonly cleanup: RetentionJob;

  constructor(private readonly options: OutboxRelayOptions) {
    const { pool, logger, metrics } = options;
    if (metrics) watchOutbox(metrics, pool);
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    const pollMs = options.pollIntervalMs ?? 1000;
    this.relay = new BackgroundJob({
      name: 'outbox-relay',
      logger,
      ...(metrics ? { metrics } : {}),
      idleMs: pollMs,
      backoff: { minMs: Math.min(pollMs, 1000), maxMs: Math.max(pollMs, 5000) },
      listen: { channel: NOTIFY_CHANNEL, payload: options.schema, pool },
      backlog: async () => {
        const { rows } = await pool.query<{ depth: number; oldest: Date | null }>(
          'SELECT count(*)::int AS depth, min(created_at) AS oldest FROM outbox WHERE published_at IS NULL',
        );
        return { depth: rows[0]?.depth ?? 0, oldestDueAt: rows[0]?.oldest ?? null };
      },
      work: {
        kind: 'periodic',
        pass: async () => {
          const published = await this.drainOnce();
          // A full batch may have left rows behind. Otherwise a row written since this pass began has
          // notified, and a row whose notification was lost is found by the poll.
          return { done: published, more: published >= batchSize };
        },
      },
    });
    const hours = options.retentionHours ?? 24 * 7;
    const rules: RetentionRule[] = [
      {
        what: 'published_outbox_row',
        ageMs: hours * 3_600_000,
        batch: CLEANUP_BATCH,
        remove: async (cutoff, batch) => {
          const { rowCount } = await pool.query(
            `DELETE FROM outbox WHERE id IN (
               SELECT id FROM outbox WHERE published_at < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
            [cutoff, batch],
          );
          return rowCount ?? 0;
        },
      },
    ];
    this.cleanup = new RetentionJob({
      name: 'outbox-retention',
      logger,
      ...(metrics ? { metrics } : {}),
      intervalMs: CLEANUP_EVERY_MS,
      rules,
    });
  }

  async start(): Promise<void> {
    await this.relay.start();
    await this.cleanup.start();
  }

  /** Rows were written: publish them now. */
  wake(): void {
    this.relay.wake();
  }

  /** Publishes one batch; returns how many rows it published. */
  async drainOnce(): Promise<number> {
    if (!this.options.broker.isConnected()) return 0;
    const { pool, broker } = this.options;
    const claimMs = this.options.claimMs ?? DEFAULT_CLAIM_MS;
    const { rows } = await pool.query<{
      id: string;
      payload: EventEnvelope;
      traceparent: string | null;
      tracestate: string | null;
    }>(
      `UPDATE outbox SET claimed_until = now() + make_interval(secs => $2::double precision / 1000)
        WHERE id IN (SELECT id FROM outbox
                      WHERE published_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
                      ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, payload, traceparent, tracestate`,
      [this.options.batchSize ?? DEFAULT_BATCH_SIZE, claimMs],
    );
    if (rows.length === 0) return 0;
    // RETURNING follows no order; events leave in the order they were written.
    rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    const ids = rows.map((row) => row.id);
    try {
      // Each message is published in the trace of the transaction that wrote it (its headers carry it on).
      const published = rows.map((row) =>
        withTraceHeaders(row.traceparent ? { traceparent: row.traceparent, tracestate: row.tracestate } : null, () =>
          broker.publish(row.payload),
        ),
      );
      await confirmedWithin(claimMs / 2, Promise.all(published));
    } catch (error) {
      // Give the rows back now rather than when the claim runs out.
      await pool
        .query('UPDATE outbox SET claimed_until = NULL WHERE id = ANY($1) AND published_at IS NULL', [ids])
        .catch(() => undefined);
      throw error;
    }
    await pool.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1)', [ids]);
    return rows.length;
  }

  /** Stops both jobs; a batch being published is finished (confirmed and marked) first. */
  async stop(): Promise<void> {
    await Promise.all([this.relay.stop(), this.cleanup.stop()]);
  }
}

/** The broker's confirms of a batch, or a failure once `ms` passed (the claim is then given back). */
async function confirmedWithin(ms: number, confirms: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConfirmTimeout(ms)), ms);
  });
  try {
    await Promise.race([confirms, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
