import { randomUUID } from 'node:crypto';
import type { Logger, Pool } from '@idv/kit';
import pg from 'pg';
import type { ClaimedMessage, MessageId } from '../domain/message';
import { DUE_CHANNEL, claimDue, nextDueInMs, releaseClaims } from './messages.repository';

export interface DispatcherOptions {
  pool: Pool;
  /** For the LISTEN connection, outside the pool. */
  databaseUrl: string;
  logger: Logger;
  concurrency: number;
  endpointConcurrency: number;
  pollMs: number;
  /** How long a claim lasts: longer than any attempt, so only a crashed replica's claims run out. */
  leaseMs: number;
  /** The work on one claimed message (jobs/deliver-messages.ts: the deliver use case). */
  handle: (message: ClaimedMessage) => Promise<void>;
}

/**
 * The I/O loop of delivery: claims what PostgreSQL says is due and hands each message to `handle`.
 * Woken by NOTIFY (new messages), by its own completions and by a timer set to the next due time
 * (capped by the poll interval). Bounded concurrency, with a cap per endpoint so a hanging endpoint
 * can never hold every slot and delay the others.
 */
export class Dispatcher {
  private running = false;
  private loop: Promise<void> | null = null;
  private listener: pg.Client | null = null;
  private wakeUp: (() => void) | null = null;
  private pendingWake = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private readonly token = randomUUID();

  constructor(private readonly options: DispatcherOptions) {}

  async start(): Promise<void> {
    this.running = true;
    await this.listen();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    // Attempts under way finish (bounded by the receiver timeout) and are recorded.
    await Promise.allSettled([...this.inFlight]);
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  wake(): void {
    this.pendingWake = true;
    this.wakeUp?.();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.databaseUrl, application_name: 'webhooks-listener' });
    client.on('error', (error) => {
      this.options.logger.warn({ err: error }, 'schedule listener lost; polling until it reconnects');
      this.listener = null;
      client.end().catch(() => undefined);
    });
    client.on('notification', () => this.wake());
    try {
      await client.connect();
      await client.query(`LISTEN ${DUE_CHANNEL}`);
      this.listener = client;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'schedule listener unavailable; polling only');
      await client.end().catch(() => undefined);
    }
  }

  private saturatedEndpoints(): string[] {
    return [...this.perEndpoint].filter(([, n]) => n >= this.options.endpointConcurrency).map(([id]) => id);
  }

  private async run(): Promise<void> {
    const { pool, pollMs, concurrency } = this.options;
    while (this.running) {
      this.pendingWake = false;
      let delay = pollMs;
      try {
        const free = concurrency - this.inFlight.size;
        let claimedAll = false;
        let claimedAny = false;
        if (free > 0) {
          const batch = Math.min(free, 100);
          const claimed = await claimDue(pool, {
            limit: batch,
            excludeEndpoints: this.saturatedEndpoints(),
            leaseMs: this.options.leaseMs,
            token: this.token,
          });
          const overCap: MessageId[] = [];
          for (const message of claimed) {
            const current = this.perEndpoint.get(message.endpointId) ?? 0;
            if (current >= this.options.endpointConcurrency) {
              overCap.push(message.id);
              continue;
            }
            this.perEndpoint.set(message.endpointId, current + 1);
            this.track(message);
          }
          await releaseClaims(pool, overCap, this.token);
          claimedAll = claimed.length === batch && overCap.length === 0;
          claimedAny = claimed.length > overCap.length;
        }
        if (claimedAll) continue; // more may be due right now
        if (!this.listener && this.running) await this.listen();
        if (claimedAny) {
          // Busy: completions wake the loop; look again shortly anyway (saves a query per pass).
          delay = Math.min(pollMs, 20);
        } else {
          const next = await nextDueInMs(pool);
          if (next !== null) delay = Math.min(pollMs, Math.max(next <= 0 ? 50 : next, 2));
        }
      } catch (error) {
        this.options.logger.warn({ err: error }, 'schedule pass failed; retrying');
        delay = Math.min(pollMs, 500);
      }
      if (!this.running || this.pendingWake) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }

  private track(message: ClaimedMessage): void {
    const work = this.options
      .handle(message)
      .catch((error: unknown) => {
        // Not recorded: the claim's lease runs out and the message is attempted again.
        this.options.logger.error({ err: error, message_id: message.id }, 'delivery bookkeeping failed');
      })
      .finally(() => {
        this.inFlight.delete(work);
        const left = (this.perEndpoint.get(message.endpointId) ?? 1) - 1;
        if (left <= 0) this.perEndpoint.delete(message.endpointId);
        else this.perEndpoint.set(message.endpointId, left);
        this.wake();
      });
    this.inFlight.add(work);
  }
}
