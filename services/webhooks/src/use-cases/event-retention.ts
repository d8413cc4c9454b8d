import type { Pool } from '@idv/kit';
import { removeDocumentsOccurredBefore } from '../adapters/messages.repository';

const BATCH = 200;

/** A sweep may stop part-way (the database went away): what it removed by then still counts. */
export type RetentionSweep = { removed: number; failed: false } | { removed: number; failed: true; error: unknown };

/**
 * Removes the document data of every stored event older than the retention period at `now`, a batch
 * per statement (replicas skip each other's rows). The verdict, the reasons and the rest of the
 * snapshot stay: only what was read from the person's document goes.
 */
export async function removeExpiredEventDocuments(deps: { pool: Pool }, retentionMs: number, now: Date): Promise<RetentionSweep> {
  const cutoff = new Date(now.getTime() - retentionMs);
  let removed = 0;
  try {
    for (;;) {
      const count = await removeDocumentsOccurredBefore(deps.pool, cutoff, now, BATCH);
      removed += count;
      if (count < BATCH) return { removed, failed: false };
    }
  } catch (error) {
    return { removed, failed: true, error };
  }
}
