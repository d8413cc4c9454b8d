import type { Logger, Metrics, Pool } from '@idv/kit';
import { removeExpiredEventDocuments } from '../use-cases/event-retention';

/**
 * Every `intervalMs`, the events past retention (ARTEFACT_RETENTION_DAYS) lose their document data;
 * every replica may run it. A failed sweep runs again at the next interval.
 */
export class EventRetentionSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
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
  }

  start(): void {
    const tick = () => {
      this.running = this.sweep().finally(() => {
        this.running = null;
        if (this.timer) this.timer = setTimeout(tick, this.options.intervalMs);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  /** One pass over everything past retention at `now`; returns how many events lost their document. */
  async sweep(now: Date = new Date()): Promise<number> {
    const sweep = await removeExpiredEventDocuments(this.deps, this.options.retentionMs, now);
    const { removed } = sweep;
    if (sweep.failed) {
      this.failures.inc();
      this.deps.logger.warn({ err: sweep.error }, 'event retention sweep failed; it runs again at the next interval');
    }
    if (removed > 0) {
      this.removed.inc(removed);
      this.deps.logger.info({ removed }, 'document data of events past retention removed');
    }
    return removed;
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
