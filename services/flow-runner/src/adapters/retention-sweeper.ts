import type { Logger, Metrics } from '@idv/kit';
import type { ArtefactStore } from '../domain/artefacts';

const BATCH = 200;

/**
 * Deletes captured images, and what was read from them, once they are older than the retention
 * period. Every replica may run it: each deletion skips rows another replica is deleting.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly deleted;

  constructor(
    private readonly deps: { artefacts: ArtefactStore; logger: Logger; metrics: Metrics },
    private readonly options: { retentionMs: number; intervalMs: number },
  ) {
    this.deleted = deps.metrics.counter('artefacts_deleted_total', 'Captured images deleted after their retention period');
  }

  start(): void {
    const tick = () => {
      this.running = this.sweep().then(() => {
        this.running = null;
        if (this.timer) this.timer = setTimeout(tick, this.options.intervalMs);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  /** Deletes every artefact past retention, a batch at a time; returns how many went. */
  async sweep(now: Date = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.options.retentionMs);
    let total = 0;
    try {
      for (;;) {
        const count = await this.deps.artefacts.deleteCapturedBefore(cutoff, BATCH);
        total += count;
        if (count < BATCH) break;
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'retention sweep failed; will retry');
    }
    if (total > 0) {
      this.deleted.inc(total);
      this.deps.logger.info({ deleted: total }, 'artefacts past retention deleted');
    }
    return total;
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
