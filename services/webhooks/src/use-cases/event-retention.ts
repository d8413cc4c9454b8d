import type { Pool, RetentionRule } from '@idv/kit';
import { removeDocumentsOccurredBefore } from '../adapters/messages.repository';

const BATCH = 200;

/** What webhooks' retention table removes: the `what` of its metrics and log lines. */
export const EVENT_DOCUMENT = 'event_document';

/**
 * Webhooks' retention table (the kit's table-driven sweep): the document data of every stored event
 * older than the retention period, a batch per statement (replicas skip each other's rows). The
 * verdict, the reasons and the rest of the snapshot stay: only what was read from the person's
 * document goes.
 */
export function eventRetentionRules(deps: { pool: Pool }, retentionMs: number): RetentionRule[] {
  return [
    {
      what: EVENT_DOCUMENT,
      ageMs: retentionMs,
      batch: BATCH,
      remove: (cutoff, batch, now) => removeDocumentsOccurredBefore(deps.pool, cutoff, now, batch),
    },
  ];
}
