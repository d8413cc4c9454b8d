import type { Pool } from '@idv/kit';
import type { SuccessRecord } from '../domain/message';
import type { SuccessRecorder } from '../domain/ports';
import { recordSuccesses } from './messages.repository';

const MAX_BATCH = 500;

/**
 * Records successful attempts in batches: while one write is under way the next ones accumulate, so
 * a busy replica writes many records per statement and an idle one writes each at once.
 */
export class SuccessBatcher implements SuccessRecorder {
  private queue: Array<{ record: SuccessRecord; resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing = false;

  constructor(private readonly pool: Pool) {}

  add(record: SuccessRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await recordSuccesses(
            this.pool,
            batch.map((b) => b.record),
          );
          for (const b of batch) b.resolve();
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
