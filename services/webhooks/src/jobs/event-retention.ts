import { retentionJob, type BackgroundJob, type Logger, type Metrics, type Pool } from '@idv/kit';
import { EVENT_DOCUMENT, removeExpiredEventDocuments } from '../use-cases/event-retention';

/**
 * Every `intervalMs`, the events past retention (ARTEFACT_RETENTION_DAYS) lose their document data,
 * through the kit's background job `webhook-retention`; every replica may run it. A failed sweep runs
 * again after a backoff, at the latest at the next interval.
 */
export class EventRetentionSweeper {
  private readonly job: BackgroundJob;
  private readonly removed;
  private readonly failures;

  constructor(
    private readonly deps: { pool: Pool; logger: Logger; metrics: Metrics },
    private readonly options: { retentionMs: number; intervalMs: number },
  ) {
    this.removed = deps.metrics.counter(
      'webhook_event_documents_removed_total',
      'Document data removed from stored events after the retention period',
    );
    this.failures = deps.metrics.counter('webhook_retention_sweep_errors_total', 'Retention sweeps that failed (retried)');
    this.job = retentionJob({
      name: 'webhook-retention',
      logger: deps.logger,
      metrics: deps.metrics,
      intervalMs: options.intervalMs,
      sweep: (now) => this.sweepAt(now),
    });
  }

  start(): Promise<void> {
    return this.job.start();
  }

  /** One pass over everything past retention at `now`; returns how many events lost their document. */
  async sweep(now: Date = new Date()): Promise<number> {
    const sweep = await this.sweepAt(now);
    return sweep.removed[EVENT_DOCUMENT] ?? 0;
  }

  private async sweepAt(now: Date) {
    const sweep = await removeExpiredEventDocuments(this.deps, this.options.retentionMs, now);
    const removed = sweep.removed[EVENT_DOCUMENT] ?? 0;
    if (sweep.error !== undefined) {
      this.failures.inc();
      this.deps.logger.warn({ err: sweep.error }, 'event retention sweep failed; it runs again at the next interval');
    }
    if (removed > 0) {
      this.removed.inc(removed);
      this.deps.logger.info({ removed }, 'document data of events past retention removed');
    }
    return sweep;
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
