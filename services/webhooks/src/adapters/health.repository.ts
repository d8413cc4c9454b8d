import type { AccountId, WebhookEndpointId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';
import { LATENCY_BUCKET_SQL, type HourCounts, type LatencyHistogram } from '../domain/health';

/**
 * An endpoint's attempts by hour (migration 1796441000001): counted from the log over [$3, $4) by an index-only
 * scan of the endpoint's covering index, every hour of the range present (zero when idle). Circuit skips are
 * not attempts; the latency histogram counts the attempts that got an HTTP status.
 */
const HOURS_SQL = `
  WITH attempts AS (
    SELECT date_bin('1 hour', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS hour, status, http_status, duration_ms
      FROM deliveries
     WHERE account_id = $1 AND endpoint_id = $2 AND created_at >= $3 AND created_at < $4
       AND error IS DISTINCT FROM 'circuit_breaker_open'
  ), totals AS (
    SELECT hour, count(*)::int AS attempts, (count(*) FILTER (WHERE status = 'succeeded'))::int AS succeeded
      FROM attempts GROUP BY hour
  ), buckets AS (
    SELECT hour, ${LATENCY_BUCKET_SQL} AS bucket, count(*)::int AS n
      FROM attempts WHERE http_status IS NOT NULL AND duration_ms IS NOT NULL GROUP BY 1, 2
  ), latency AS (
    SELECT hour, jsonb_object_agg(bucket::text, n) AS latency FROM buckets GROUP BY hour
  )
  SELECT h.hour, COALESCE(t.attempts, 0) AS attempts, COALESCE(t.succeeded, 0) AS succeeded,
         COALESCE(l.latency, '{}'::jsonb) AS latency
    FROM generate_series($3::timestamptz, $4::timestamptz - interval '1 hour', interval '1 hour') AS h (hour)
    LEFT JOIN totals t ON t.hour = h.hour
    LEFT JOIN latency l ON l.hour = h.hour`;

interface HourRow {
  hour: Date;
  attempts: number;
  succeeded: number;
  latency: LatencyHistogram;
}

const toCounts = (row: HourRow): HourCounts => ({
  hour: row.hour,
  attempts: row.attempts,
  succeeded: row.succeeded,
  latency: row.latency,
});

/** The rolled-up hours of the endpoint in [from, to), oldest first. */
export async function rolledUpHours(
  db: Queryable,
  accountId: AccountId,
  endpointId: WebhookEndpointId,
  range: { from: Date; to: Date },
): Promise<HourCounts[]> {
  const { rows } = await db.query<HourRow>(
    `SELECT hour, attempts, succeeded, latency FROM delivery_hours
      WHERE endpoint_id = $2 AND account_id = $1 AND hour >= $3 AND hour < $4 ORDER BY hour`,
    [accountId, endpointId, range.from, range.to],
  );
  return rows.map(toCounts);
}

/** Rolls up the closed hours [from, to) (whole hours) of the endpoint; an hour already rolled up is kept. */
export async function rollUpHours(
  db: Queryable,
  accountId: AccountId,
  endpointId: WebhookEndpointId,
  range: { from: Date; to: Date },
): Promise<HourCounts[]> {
  const { rows } = await db.query<HourRow>(
    `INSERT INTO delivery_hours (endpoint_id, hour, account_id, attempts, succeeded, latency)
     SELECT $2, c.hour, $1, c.attempts, c.succeeded, c.latency FROM (${HOURS_SQL}) AS c
     ON CONFLICT (endpoint_id, hour) DO NOTHING
     RETURNING hour, attempts, succeeded, latency`,
    [accountId, endpointId, range.from, range.to],
  );
  return rows.map(toCounts);
}

/** The hours [from, to) counted now from the log (the hour under way: not rolled up). */
export async function countHours(
  db: Queryable,
  accountId: AccountId,
  endpointId: WebhookEndpointId,
  range: { from: Date; to: Date },
): Promise<HourCounts[]> {
  const { rows } = await db.query<HourRow>(HOURS_SQL, [accountId, endpointId, range.from, range.to]);
  return rows.map(toCounts);
}
