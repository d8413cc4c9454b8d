import { Batcher, type Pool } from '@idv/kit';
import type { SuccessRecord } from '../domain/message';
import type { SuccessRecorder } from '../domain/ports';
import { recordSuccesses } from './messages.repository';

const MAX_BATCH = 500;

/**
 * Records successful attempts in batches through the kit's batcher: one write at a time, and while it
 * is under way the next records accumulate, so a busy replica writes many records per statement and an
 * idle one writes each at once.
 */
export class SuccessBatcher implements SuccessRecorder {
  private readonly batcher: Batcher<SuccessRecord, true>;

  constructor(pool: Pool) {
    this.batcher = new Batcher(
      async (records) => {
        await recordSuccesses(pool, records);
        return records.map(() => true as const);
      },
      { maxBatch: MAX_BATCH, maxInFlight: 1 },
    );
  }

  async add(record: SuccessRecord): Promise<void> {
    await this.batcher.submit(record);
  }
}
