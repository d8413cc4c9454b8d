import { VerificationPool } from '../src/adapters/verification-pool';

/**
 * The reading threads start with the heap the configuration gives them: V8's own account of a started
 * thread's limits, so a setting lost between the configuration and the worker fails here.
 */
describe('the verification pool', () => {
  it('starts every thread with the configured old and young generations', async () => {
    const pool = new VerificationPool({ threads: 2, maxHeapMb: 384, youngGenerationMb: 6 });
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
