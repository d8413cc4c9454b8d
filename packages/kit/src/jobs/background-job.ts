import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { jobMetrics, type Backlog, type JobMetrics } from './metrics';
import { NotifyListener, type ListenOptions } from './listen';

/** One run of periodic work: how many items it finished, and whether it stopped at its batch limit. */
export interface PassResult {
  done: number;
  /** True when the pass left work behind: the next pass starts at once. */
  more: boolean;
}

/** Work done a pass at a time (sweeps, the outbox relay): the pass claims and finishes its own batch. */
export interface PeriodicWork {
  kind: 'periodic';
  pass: () => Promise<PassResult>;
}

/**
 * Work claimed item by item and worked concurrently (webhook delivery). `claim` takes up to `limit`
 * due items with `FOR UPDATE SKIP LOCKED` and leases them, so replicas never take the same item and a
 * crashed replica's items come due again when their lease ends.
 */
export interface ClaimedWork<T> {
  kind: 'claimed';
  /** Items worked at once by this replica. */
  concurrency: number;
  /** Most items taken by one claim. */
  batch: number;
  claim: (limit: number) => Promise<T[]>;
  handle: (item: T) => Promise<void>;
  /** Names an item in logs and in the failure count. */
  keyOf: (item: T) => string;
  /** When the item became due, for the lag histogram. */
  dueAt?: (item: T) => Date;
  /** Poison work: without it, a failing item is retried forever. */
  deadLetter?: DeadLetter<T>;
  /** Milliseconds until the next item comes due (negative: already due), null when none waits. */
  nextDueInMs?: () => Promise<number | null>;
}

/**
 * How poison work leaves the queue. The store counts, per item, the claims that ended without an outcome
 * (its handler failed, or its replica died or was killed holding it): the claim adds one and recording an
 * outcome resets it, so the count is shared by replicas and survives restarts. An item whose earlier
 * claims reached `after` is moved at its next claim without being worked again (a message that crashes
 * the process each time is caught too); one whose handler fails for the `after`-th time is moved at once.
 * A failure short of it leaves the item to its lease: it comes due again. `after` may depend on the
 * item (Infinity: not yet, e.g. while someone still waits for it).
 */
export interface DeadLetter<T> {
  after: number | ((item: T) => number);
  /** Claims of the item before this one that ended without an outcome, as claimed from the store. */
  earlierFailures: (item: T) => number;
  move: (item: T, error: unknown) => Promise<void>;
}

export interface BackgroundJobOptions<T = never> {
  /** The `job` label of its metrics and the `job` key of its log lines. */
  name: string;
  logger: Logger;
  metrics?: Metrics;
  /** The wait between passes when there is nothing to do: the safety net when a NOTIFY is lost. */
  idleMs: number;
  /** While claimed items are in flight, the loop looks again at least this often (their completion also wakes it). */
  busyMs?: number;
  /** After a failed pass the wait doubles from `minMs` to `maxMs`; a success resets it. */
  backoff?: { minMs: number; maxMs: number };
  /** A NOTIFY on this channel wakes the job at once. */
  listen?: ListenOptions;
  /** Read at each metrics scrape: the queue depth and the age of the oldest waiting item. */
  backlog?: () => Promise<Backlog>;
  work: PeriodicWork | ClaimedWork<T>;
}

/**
 * The one background-work loop of every service (docs/operations.md "Background jobs"): periodic
 * sweeps and claimed work alike start, wake on NOTIFY or `wake()`, back off on errors and stop promptly.
 * `stop()` waits for the pass under way and for every claimed item in flight, so a SIGTERM loses no
 * work: what was claimed is finished, and what was not claimed stays in its table for the next replica.
 */
export class BackgroundJob<T = never> {
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private consecutiveErrors = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly listener: NotifyListener | null;
  private readonly metrics: JobMetrics | null;

  constructor(private readonly options: BackgroundJobOptions<T>) {
    this.listener = options.listen ? new NotifyListener(options.listen, () => this.wake(), options.logger, options.name) : null;
    this.metrics = options.metrics ? jobMetrics(options.metrics) : null;
    if (this.metrics && options.backlog) this.metrics.watchBacklog(options.name, options.backlog);
  }

  get name(): string {
    return this.options.name;
  }

  /** Items claimed and not finished yet on this replica. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.listener?.open();
    this.loop = this.run();
  }

  /** Work arrived (or may have): the next pass starts now instead of at the end of the wait. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops claiming, then waits for the pass under way and every item in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    await this.listener?.close();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let delay: number;
      try {
        delay = await this.pass();
        this.consecutiveErrors = 0;
      } catch (error) {
        this.consecutiveErrors += 1;
        this.metrics?.errors.inc({ job: this.options.name });
        delay = this.backoffMs();
        this.options.logger.warn(
          { err: error, job: this.options.name, retry_in_ms: delay },
          'background job pass failed; will retry',
        );
      }
      if (this.listener && !this.listener.listening && this.running) await this.listener.open();
      if (!this.running || this.woken || delay <= 0) continue;
      await this.pause(delay);
    }
  }

  private backoffMs(): number {
    const { minMs, maxMs } = this.options.backoff ?? {
      minMs: Math.min(this.options.idleMs, 500),
      maxMs: Math.max(this.options.idleMs, 5_000),
    };
    return Math.min(maxMs, minMs * 2 ** Math.min(this.consecutiveErrors - 1, 20));
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  /** One pass; returns how long to wait before the next (0: at once). */
  private async pass(): Promise<number> {
    const { work, name, idleMs } = this.options;
    this.metrics?.passes.inc({ job: name });
    if (work.kind === 'periodic') {
      const result = await work.pass();
      if (result.done > 0) this.metrics?.items.inc({ job: name, outcome: 'done' }, result.done);
      return result.more ? 0 : idleMs;
    }
    const free = work.concurrency - this.inFlight.size;
    if (free <= 0) return this.options.busyMs ?? Math.min(idleMs, 20);
    const limit = Math.min(free, work.batch);
    const claimed = await work.claim(limit);
    const now = Date.now();
    for (const item of claimed) {
      const due = work.dueAt?.(item);
      if (due) this.metrics?.lag.observe({ job: name }, Math.max(0, (now - due.getTime()) / 1000));
      this.track(work, item);
    }
    if (claimed.length === limit) return 0; // more may be due right now
    // Busy: completions wake the loop; look again shortly anyway.
    if (claimed.length > 0) return this.options.busyMs ?? Math.min(idleMs, 20);
    const next = (await work.nextDueInMs?.()) ?? null;
    return next === null ? idleMs : Math.min(idleMs, Math.max(next <= 0 ? 50 : next, 2));
  }

  private track(work: ClaimedWork<T>, item: T): void {
    const { name, logger } = this.options;
    const key = work.keyOf(item);
    this.metrics?.inFlight.inc({ job: name });
    const running = this.work(work, item, key)
      .catch((error: unknown) => {
        logger.error({ err: error, job: name, item: key }, 'dead-lettering an item failed; it comes due again');
      })
      .finally(() => {
        this.inFlight.delete(running);
        this.metrics?.inFlight.dec({ job: name });
        this.wake();
      });
    this.inFlight.add(running);
  }

  private async work(work: ClaimedWork<T>, item: T, key: string): Promise<void> {
    const { name, logger } = this.options;
    const poison = work.deadLetter;
    const earlier = poison?.earlierFailures(item) ?? 0;
    const cap = poison === undefined ? Infinity : typeof poison.after === 'number' ? poison.after : poison.after(item);
    if (poison && earlier >= cap) {
      const error = new Error(`${earlier} claims ended without an outcome`);
      return this.moveToDeadLetter(poison, item, key, earlier, error);
    }
    try {
      await work.handle(item);
    } catch (error) {
      this.metrics?.errors.inc({ job: name });
      const failures = earlier + 1;
      if (poison && failures >= cap) return this.moveToDeadLetter(poison, item, key, failures, error);
      this.metrics?.items.inc({ job: name, outcome: 'failed' });
      // Not recorded: the claim's lease runs out and the item is attempted again.
      logger.error({ err: error, job: name, item: key, failures }, 'job item failed; it comes due again when its lease ends');
      return;
    }
    this.metrics?.items.inc({ job: name, outcome: 'done' });
  }

  private async moveToDeadLetter(poison: DeadLetter<T>, item: T, key: string, failures: number, error: unknown): Promise<void> {
    const { name, logger } = this.options;
    this.metrics?.items.inc({ job: name, outcome: 'dead_lettered' });
    logger.error({ err: error, job: name, item: key, failures }, 'item failed too often; dead-lettered');
    await poison.move(item, error);
  }
}
