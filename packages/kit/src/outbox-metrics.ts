import type pg from 'pg';
import type { Metrics } from './metrics';
import { ageSeconds, scrapeRead } from './scrape-read';

/** Counting stops here: past it the gauge says "at least this many", and the scrape stays cheap. */
export const OUTBOX_COUNT_CAP = 100_000;

/**
 * `outbox_pending_messages` and `outbox_oldest_pending_age_seconds` of the service's outbox, read at
 * scrape through the partial index of unpublished rows (a capped count and the first row by id).
 * Registered once per registry (one outbox per service).
 */
export function watchOutbox(metrics: Metrics, pool: pg.Pool): void {
  if (metrics.registry.getSingleMetric('outbox_pending_messages')) return;
  const read = scrapeRead(async () => {
    const { rows } = await pool.query<{ pending: number; oldest: Date | null }>(
      `SELECT (SELECT count(*) FROM (SELECT 1 FROM outbox WHERE published_at IS NULL LIMIT $1) AS capped)::int AS pending,
              (SELECT created_at FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1) AS oldest`,
      [OUTBOX_COUNT_CAP],
    );
    return rows[0] ?? { pending: 0, oldest: null };
  });
  metrics.gauge('outbox_pending_messages', 'Outbox rows not yet published to the broker', [], async function () {
    const state = await read();
    if (state) this.set(state.pending);
  });
  metrics.gauge(
    'outbox_oldest_pending_age_seconds',
    'Age of the oldest outbox row not yet published, 0 when none',
    [],
    async function () {
      const state = await read();
      if (state) this.set(ageSeconds(state.oldest));
    },
  );
}
