import type { Gauge, Counter, Registry } from 'prom-client';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { BackgroundJob } from './background-job';

/**
 * One row of a retention table: `what` goes `ageMs` after the moment its query compares, removed by
 * `remove` a batch at a time. `remove(cutoff, batch, now)` takes at most `batch` rows older than `cutoff`
 * with `FOR UPDATE SKIP LOCKED` (so replicas sweeping at once share the work) and returns how many went.
 */
export interface RetentionRule {
  what: string;
  ageMs: number;
  batch: number;
  remove: (cutoff: Date, batch: number, now: Date) => Promise<number>;
}

/** How much of each `what` a sweep removed, and the error that stopped it part-way, if one did. */
export interface RetentionSweep {
  removed: Record<string, number>;
  error?: unknown;
}

/**
 * Runs every rule of the table in order, each until a batch comes back short. A failure stops the sweep
 * where it is: what was removed by then still counts, and the next sweep resumes.
 */
export async function sweepRetention(
  rules: readonly RetentionRule[],
  now: Date,
  onRemoved: (what: string, count: number) => void = () => undefined,
): Promise<RetentionSweep> {
  const removed: Record<string, number> = Object.fromEntries(rules.map((rule) => [rule.what, 0]));
  try {
    for (const rule of rules) {
      const cutoff = new Date(now.getTime() - rule.ageMs);
      for (;;) {
        const count = await rule.remove(cutoff, rule.batch, now);
        removed[rule.what] = (removed[rule.what] ?? 0) + count;
        if (count > 0) onRemoved(rule.what, count);
        if (count < rule.batch) break;
      }
    }
    return { removed };
  } catch (error) {
    return { removed, error };
  }
}

export interface RetentionJobOptions {
  /** The `job` label of its metrics and log lines. */
  name: string;
  logger: Logger;
  metrics?: Metrics;
  intervalMs: number;
  /** The service's retention table, in the order it is swept. */
  rules: readonly RetentionRule[];
}

interface RetentionMetrics {
  removed: Counter<'job' | 'what'>;
  lastSweep: Gauge<'job'>;
}

const metricsByRegistry = new WeakMap<Registry, RetentionMetrics>();

/** One metric family for every retention table of a process, a `job` and a `what` label each. */
function retentionMetrics(metrics: Metrics): RetentionMetrics {
  const existing = metricsByRegistry.get(metrics.registry);
  if (existing) return existing;
  const created: RetentionMetrics = {
    removed: metrics.counter('retention_removed_total', 'Rows or data removed after their retention period, by job and what', [
      'job',
      'what',
    ] as const),
    lastSweep: metrics.gauge('retention_last_sweep_seconds', 'Unix time of the last retention sweep that completed, by job', [
      'job',
    ] as const),
  };
  metricsByRegistry.set(metrics.registry, created);
  return created;
}

/**
 * A retention table swept every `intervalMs` (and at start) through the background-job loop
 * (docs/operations.md "Background jobs"). Its metrics are `retention_removed_total{job,what}` and
 * `retention_last_sweep_seconds{job}`; a failed sweep counts in `job_errors_total{job}` and is retried
 * after a backoff, at the latest at the next interval. Log lines carry counts only, never a row's id.
 */
export class RetentionJob {
  private readonly job: BackgroundJob;
  private readonly metrics: RetentionMetrics | null;

  constructor(private readonly options: RetentionJobOptions) {
    this.metrics = options.metrics ? retentionMetrics(options.metrics) : null;
    this.job = new BackgroundJob({
      name: options.name,
      logger: options.logger,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      idleMs: options.intervalMs,
      // A failed sweep is retried no later than at the next interval, sooner while it keeps failing briefly.
      backoff: { minMs: Math.min(options.intervalMs, 1_000), maxMs: options.intervalMs },
      work: {
        kind: 'periodic',
        pass: async () => {
          const removed = await this.sweep(new Date());
          return { done: Object.values(removed).reduce((a, b) => a + b, 0), more: false };
        },
      },
    });
  }

  start(): Promise<void> {
    return this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  /**
   * One sweep of the table (or of the rules `only` keeps) at `now`, as the job runs it: counted and
   * logged; returns how much of each `what` went. An error that stopped it part-way is thrown after what
   * went before it is counted (the job then backs off and sweeps again).
   */
  async sweep(now: Date = new Date(), only: (rule: RetentionRule) => boolean = () => true): Promise<Record<string, number>> {
    const { name: job, logger } = this.options;
    const sweep = await sweepRetention(this.options.rules.filter(only), now, (what, count) =>
      this.metrics?.removed.inc({ job, what }, count),
    );
    if (Object.values(sweep.removed).some((count) => count > 0)) {
      logger.info({ job, removed: sweep.removed }, 'data past its retention period removed');
    }
    if (sweep.error !== undefined) {
      throw sweep.error instanceof Error ? sweep.error : new Error('retention sweep failed', { cause: sweep.error });
    }
    this.metrics?.lastSweep.set({ job }, Date.now() / 1000);
    return sweep.removed;
  }
}
