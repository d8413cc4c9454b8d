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
  name: string;
  logger: Logger;
  metrics?: Metrics;
  intervalMs: number;
  /** One sweep at `now`; a sweep that stopped on an error makes the job back off and try again. */
  sweep: (now: Date) => Promise<RetentionSweep>;
}

/** A retention table swept every `intervalMs` (and at start) through the background-job loop. */
export function retentionJob(options: RetentionJobOptions): BackgroundJob {
  return new BackgroundJob({
    name: options.name,
    logger: options.logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    idleMs: options.intervalMs,
    // A failed sweep is retried no later than at the next interval, sooner while it keeps failing briefly.
    backoff: { minMs: Math.min(options.intervalMs, 1_000), maxMs: options.intervalMs },
    work: {
      kind: 'periodic',
      pass: async () => {
        const sweep = await options.sweep(new Date());
        if (sweep.error !== undefined)
          throw sweep.error instanceof Error ? sweep.error : new Error('retention sweep failed', { cause: sweep.error });
        return { done: Object.values(sweep.removed).reduce((a, b) => a + b, 0), more: false };
      },
    },
  });
}
