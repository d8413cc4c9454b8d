import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics } from '../metrics';

/** What a job reports of the work waiting for it, read at each scrape. */
export interface Backlog {
  /** Items due and not yet taken. */
  depth: number;
  /** When the oldest of them became due; null when there is none. */
  oldestDueAt: Date | null;
}

export interface JobMetrics {
  passes: Counter<'job'>;
  items: Counter<'job' | 'outcome'>;
  errors: Counter<'job'>;
  inFlight: Gauge<'job'>;
  lag: Histogram<'job'>;
  /** Registers the backlog reader of one job for the depth and oldest-age gauges. */
  watchBacklog(job: string, read: () => Promise<Backlog>): void;
}

/**
 * The metrics of every background job of a process (docs/operations.md "Background jobs"): one set per
 * registry, a `job` label per job, so dashboards read every loop the same way.
 */
const byRegistry = new WeakMap<Registry, JobMetrics>();

export function jobMetrics(metrics: Metrics): JobMetrics {
  const existing = byRegistry.get(metrics.registry);
  if (existing) return existing;
  const backlogs = new Map<string, () => Promise<Backlog>>();
  const readAll = async (): Promise<Map<string, Backlog>> => {
    const read = new Map<string, Backlog>();
    await Promise.all(
      [...backlogs].map(async ([job, reader]) => {
        // A failed read leaves the gauge at its last value: the scrape itself must not fail.
        const backlog = await reader().catch(() => null);
        if (backlog) read.set(job, backlog);
      }),
    );
    return read;
  };
  const created: JobMetrics = {
    passes: metrics.counter('job_passes_total', 'Passes of a background job (a claim or a periodic run)', ['job'] as const),
    items: metrics.counter('job_items_total', 'Items a background job finished, by outcome (done, failed, dead_lettered)', [
      'job',
      'outcome',
    ] as const),
    errors: metrics.counter('job_errors_total', 'Failed passes and failed items of a background job', ['job'] as const),
    inFlight: metrics.gauge('job_in_flight', 'Items a background job is working on now (this replica)', ['job'] as const),
    lag: metrics.histogram(
      'job_lag_seconds',
      'How long an item waited between becoming due and being claimed',
      ['job'] as const,
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    ),
    watchBacklog: (job, read) => {
      backlogs.set(job, read);
    },
  };
  metrics.gauge(
    'job_queue_depth',
    'Items due and waiting for a background job (all replicas)',
    ['job'] as const,
    async function () {
      for (const [job, backlog] of await readAll()) this.set({ job }, backlog.depth);
    },
  );
  metrics.gauge(
    'job_oldest_item_age_seconds',
    'Age of the oldest item waiting for a background job, 0 when none waits (all replicas)',
    ['job'] as const,
    async function () {
      const now = Date.now();
      for (const [job, backlog] of await readAll()) {
        this.set({ job }, backlog.oldestDueAt ? Math.max(0, (now - backlog.oldestDueAt.getTime()) / 1000) : 0);
      }
    },
  );
  byRegistry.set(metrics.registry, created);
  return created;
}
