import { randomUUID } from 'node:crypto';
import { BackgroundJob, type Logger, type Metrics, type Pool } from '@idv/kit';
import type { ClaimedMessage, MessageId } from '../domain/message';
import {
  DUE_CHANNEL,
  claimDue,
  deadLetterMessage,
  dueBacklog,
  nextDueInMs,
  releaseClaims,
  type DueMessage,
} from './messages.repository';

export interface DispatcherOptions {
  pool: Pool;
  /** For the LISTEN connection, outside the pool. */
  databaseUrl: string;
  logger: Logger;
  metrics?: Metrics;
  concurrency: number;
  endpointConcurrency: number;
  pollMs: number;
  /** How long a claim lasts: longer than any attempt, so only a crashed replica's claims run out. */
  leaseMs: number;
  /** The work on one claimed message (jobs/deliver-messages.ts: the deliver use case). */
  handle: (message: ClaimedMessage) => Promise<void>;
}

/** A message whose claims ended this many times in a row without an outcome (its bookkeeping failed, or the replica died holding it) is set aside as dead. */
const MAX_BOOKKEEPING_FAILURES = 5;
const MAX_CLAIM = 100;

/**
 * The claiming side of delivery, as the kit's background job `webhook-dispatch`: claims what
 * PostgreSQL says is due and hands each message to `handle`. Woken by NOTIFY (new messages), by its own
 * completions and by a timer set to the next due time (capped by the poll interval). Bounded
 * concurrency, with a cap per endpoint so a hanging endpoint can never hold every slot and delay the
 * others. On stop, attempts under way finish (bounded by the receiver timeout) and are recorded.
 */
export class Dispatcher {
  private readonly job: BackgroundJob<DueMessage>;
  private readonly perEndpoint = new Map<string, number>();
  private readonly token = randomUUID();

  constructor(private readonly options: DispatcherOptions) {
    const { pool } = options;
    this.job = new BackgroundJob<DueMessage>({
      name: 'webhook-dispatch',
      logger: options.logger,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      idleMs: options.pollMs,
      busyMs: Math.min(options.pollMs, 20),
      backoff: { minMs: Math.min(options.pollMs, 500), maxMs: Math.max(options.pollMs, 5_000) },
      listen: { channel: DUE_CHANNEL, url: options.databaseUrl },
      backlog: () => dueBacklog(pool),
      work: {
        kind: 'claimed',
        concurrency: options.concurrency,
        batch: MAX_CLAIM,
        claim: (limit) => this.claim(limit),
        handle: (message) => this.deliver(message),
        keyOf: (message) => message.id,
        dueAt: (message) => message.dueAt,
        deadLetter: {
          after: MAX_BOOKKEEPING_FAILURES,
          earlierFailures: (message) => message.earlierFailures,
          move: (message) => deadLetterMessage(pool, message.id, this.token),
        },
        nextDueInMs: () => nextDueInMs(pool),
      },
    });
  }

  start(): Promise<void> {
    return this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  wake(): void {
    this.job.wake();
  }

  private saturatedEndpoints(): string[] {
    return [...this.perEndpoint].filter(([, n]) => n >= this.options.endpointConcurrency).map(([id]) => id);
  }

  /** Claims due messages of endpoints below their cap; any over it (claimed in the same batch) go back at once. */
  private async claim(limit: number): Promise<DueMessage[]> {
    const { pool } = this.options;
    const claimed = await claimDue(pool, {
      limit,
      excludeEndpoints: this.saturatedEndpoints(),
      leaseMs: this.options.leaseMs,
      token: this.token,
    });
    const overCap: MessageId[] = [];
    const taken: DueMessage[] = [];
    for (const message of claimed) {
      const current = this.perEndpoint.get(message.endpointId) ?? 0;
      if (current >= this.options.endpointConcurrency) {
        overCap.push(message.id);
        continue;
      }
      this.perEndpoint.set(message.endpointId, current + 1);
      taken.push(message);
    }
    await releaseClaims(pool, overCap, this.token);
    // Fewer than `limit` when some went back: the job then waits for a completion instead of claiming again.
    return taken;
  }

  private async deliver(message: DueMessage): Promise<void> {
    try {
      await this.options.handle(message);
    } finally {
      const left = (this.perEndpoint.get(message.endpointId) ?? 1) - 1;
      if (left <= 0) this.perEndpoint.delete(message.endpointId);
      else this.perEndpoint.set(message.endpointId, left);
    }
  }
}
