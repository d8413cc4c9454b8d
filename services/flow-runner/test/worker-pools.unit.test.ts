import type { ResourceLimits } from 'node:worker_threads';
import { FacePool } from '../src/adapters/face-pool';
import { VerificationPool } from '../src/adapters/verification-pool';

interface StartedPool {
  threadLimits: ResourceLimits[];
  close(): Promise<void>;
}

/**
 * The reading and face threads start with the heap the configuration gives them: V8's own account of a
 * started thread's limits (−1 for a limit it was not given), so a setting lost on the way to the worker
 * fails here. Neither pool loads its engines before its first task.
 */
describe('the worker pools', () => {
  it.each<[string, (limits: { maxHeapMb: number; youngGenerationMb: number }) => StartedPool]>([
    ['reading', (limits) => new VerificationPool({ threads: 2, ...limits })],
    ['face', (limits) => new FacePool({ threads: 2, ...limits, keyFrameKey: Buffer.alloc(32, 1) })],
  ])('start every %s thread with the configured old and young generations', async (_kind, start) => {
    const pool = start({ maxHeapMb: 384, youngGenerationMb: 6 });
    try {
      expect(pool.threadLimits).toHaveLength(2);
      for (const limits of pool.threadLimits) {
        expect(limits.maxOldGenerationSizeMb).toBe(384);
        expect(limits.maxYoungGenerationSizeMb).toBe(6);
      }
    } finally {
      await pool.close();
    }
  });
});
