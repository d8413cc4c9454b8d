import type { Logger, Metrics, Pool } from '@idv/kit';
import { removeDocumentsOccurredBefore } from './webhooks.repository';

const BATCH = 200;

/**
 * Removes the document data of events past the retention period (ARTEFACT_RETENTION_DAYS), a batch per
 * statement; every replica may run it, each batch skipping rows another one holds. The verdict, the
 * reasons and the rest of the snapshot stay: only what was read from the person's document goes.
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
    const cutoff = new Date(now.getTime() - this.options.retentionMs);
    let total = 0;
    try {
      for (;;) {
        const count = await removeDocumentsOccurredBefore(this.deps.pool, cutoff, now, BATCH);
        total += count;
        if (count < BATCH) break;
      }
    } catch (error) {
      this.failures.inc();
      this.deps.logger.warn({ err: error }, 'event retention sweep failed; it runs again at the next interval');
    }
    if (total > 0) {
      this.removed.inc(total);
      this.deps.logger.info({ removed: total }, 'document data of events past retention removed');
    }
    return total;
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
