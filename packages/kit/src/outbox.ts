import type pg from 'pg';
import type { Broker, EventEnvelope } from './broker';
import type { Queryable } from './db';
import type { Logger } from './logger';
import { sleep } from './time';

const NOTIFY_CHANNEL = 'outbox_new';

/**
 * The outbox part of a statement: CTE `queued` inserts the events (three parameters from `$first`,
 * values from `outboxParams`), only when the CTE named `guard` produced a row if one is named; CTE
 * `woken` wakes the relay at commit (the statement must read it, e.g. `(SELECT count(*) FROM woken)`).
 * A repeated event id is ignored, so re-running a transition never duplicates an event.
 */
export function outboxCtes(first: number, guard?: string): string {
  return `queued AS (
       INSERT INTO outbox (event_id, routing_key, payload)
       SELECT * FROM unnest($${first}::text[], $${first + 1}::text[], $${first + 2}::jsonb[])
       ${guard ? `WHERE EXISTS (SELECT 1 FROM ${guard})` : ''}
       ON CONFLICT (event_id) DO NOTHING
       RETURNING 1),
     woken AS (SELECT pg_notify('${NOTIFY_CHANNEL}', current_schema()) FROM queued LIMIT 1)`;
}

export function outboxParams(events: readonly EventEnvelope[]): [string[], string[], string[]] {
  return [events.map((e) => e.id), events.map((e) => e.type), events.map((e) => JSON.stringify(e))];
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

class ConfirmTimeout extends Error {
  constructor(ms: number) {
    super(`the broker did not confirm the batch within ${ms} ms`);
  }
}

/**
 * Publishes outbox rows with publisher confirms and marks them published. Woken by NOTIFY, with a
 * poll as a safety net. A pass claims a batch for `claimMs` (`FOR UPDATE SKIP LOCKED` inside one
 * statement, so replicas never take the same rows), publishes it, and marks it published: two
 * statements, and no transaction held open while the broker confirms. While the broker is down rows
 * simply wait: nothing is lost, nothing is marked published unconfirmed.
 */
export class OutboxRelay {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private listener: pg.PoolClient | null = null;
  private lastCleanup = 0;
  private notified = false;

  constructor(private readonly options: OutboxRelayOptions) {}

  async start(): Promise<void> {
    this.running = true;
    await this.listen();
    this.loop = this.run();
  }

  private async listen(): Promise<void> {
    try {
      const client = await this.options.pool.connect();
      client.on('notification', (message) => {
        if (message.payload !== this.options.schema) return;
        this.notified = true;
        this.wake?.();
      });
      client.on('error', () => {
        this.listener = null;
        client.release(true);
      });
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      this.listener = client;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'outbox listener unavailable; polling only');
    }
  }

  private async run(): Promise<void> {
    const pollMs = this.options.pollIntervalMs ?? 1000;
    const batchSize = this.options.batchSize ?? DEFAULT_BATCH_SIZE;
    while (this.running) {
      let published = 0;
      this.notified = false;
      try {
        published = await this.drainOnce();
        await this.cleanup();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'outbox relay pass failed; will retry');
        await sleep(Math.min(pollMs, 1000));
      }
      if (!this.listener && this.running) await this.listen();
      // A full batch may have left rows behind. Otherwise a row written since this pass began has
      // notified, and a row whose notification was lost is found by the poll.
      if (published < batchSize && !this.notified && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  /** Publishes one batch; returns how many rows it published. */
  async drainOnce(): Promise<number> {
    if (!this.options.broker.isConnected()) return 0;
    const { pool, broker } = this.options;
    const claimMs = this.options.claimMs ?? DEFAULT_CLAIM_MS;
    const { rows } = await pool.query<{ id: string; payload: EventEnvelope }>(
      `UPDATE outbox SET claimed_until = now() + make_interval(secs => $2::double precision / 1000)
        WHERE id IN (SELECT id FROM outbox
                      WHERE published_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
                      ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, payload`,
      [this.options.batchSize ?? DEFAULT_BATCH_SIZE, claimMs],
    );
    if (rows.length === 0) return 0;
    // RETURNING follows no order; events leave in the order they were written.
    rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    const ids = rows.map((row) => row.id);
    try {
      await confirmedWithin(claimMs / 2, Promise.all(rows.map((row) => broker.publish(row.payload))));
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

  private async cleanup(): Promise<void> {
    if (Date.now() - this.lastCleanup < 60_000) return;
    this.lastCleanup = Date.now();
    const hours = this.options.retentionHours ?? 24 * 7;
    await this.options.pool.query(`DELETE FROM outbox WHERE published_at < now() - make_interval(hours => $1)`, [hours]);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    if (this.listener) {
      await this.listener.query(`UNLISTEN ${NOTIFY_CHANNEL}`).catch(() => undefined);
      this.listener.release();
      this.listener = null;
    }
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
