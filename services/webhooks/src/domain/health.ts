/**
 * An endpoint's health: its attempts by hour over the current hour and the 23 before it, and by day (Argentina's,
 * UTC−3 all year since 2009) over today and the 6 days before it. Circuit skips are not attempts (nothing was
 * sent); the p95 latency is of the attempts that got an answer (an HTTP status), timeouts and refused connections
 * left out, read off a histogram of buckets ~10% wide (so to within 10%): each hour keeps its histogram, and a
 * day's or a window's is the sum of its hours'.
 */
export interface HealthFigures {
  attempts: number;
  succeeded: number;
  /** Null without attempts. */
  successRate: number | null;
  /** Null when no attempt got an answer. */
  p95Ms: number | null;
}

export interface HealthBucket extends HealthFigures {
  start: Date;
}

export interface HealthWindow extends HealthFigures {
  from: Date;
  buckets: HealthBucket[];
}

export interface EndpointHealth {
  at: Date;
  last24h: HealthWindow;
  last7d: HealthWindow;
}

/** Answered attempts per latency bucket (`LATENCY_BUCKET_SQL`'s number, as a string key). */
export type LatencyHistogram = Record<string, number>;

/** One hour of an endpoint's attempts, as the roll-up keeps it (or counted now, for the hour under way). */
export interface HourCounts {
  hour: Date;
  attempts: number;
  succeeded: number;
  latency: LatencyHistogram;
}

export const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Argentina's offset from UTC. */
const ARGENTINA_OFFSET_MS = -3 * HOUR_MS;

/** Bucket width ratio of the latency histogram. */
const RATIO = 1.1;
const LAST_BUCKET = 120;
/** The latency bucket of `duration_ms`, in SQL: floor(log₁.₁ ms), 1 ms and below in bucket 0, capped. */
export const LATENCY_BUCKET_SQL = `least(floor(ln(greatest(duration_ms, 1)) / ln(${RATIO}))::int, ${LAST_BUCKET})`;

export type Granularity = 'hour' | 'day';

/** The start of each bucket of a window ending at `now`: 24 hours, or 7 of Argentina's days. */
export function bucketStarts(granularity: Granularity, now: Date): Date[] {
  const size = granularity === 'hour' ? HOUR_MS : DAY_MS;
  const count = granularity === 'hour' ? 24 : 7;
  const offset = granularity === 'hour' ? 0 : ARGENTINA_OFFSET_MS;
  const current = Math.floor((now.getTime() + offset) / size) * size - offset;
  return Array.from({ length: count }, (_, index) => new Date(current - (count - 1 - index) * size));
}

/** The first hour a health read needs (the 7-day window's start: it holds the 24-hour one). */
export function healthStart(now: Date): Date {
  return bucketStarts('day', now)[0]!;
}

/** The 95th percentile of a histogram, as its bucket's upper bound in ms; null when empty. */
export function p95Of(histogram: LatencyHistogram): number | null {
  const buckets = Object.entries(histogram)
    .map(([bucket, count]) => [Number(bucket), count] as const)
    .filter(([, count]) => count > 0)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.ceil(0.95 * total);
  let seen = 0;
  for (const [bucket, count] of buckets) {
    seen += count;
    if (seen >= rank) return Math.round(RATIO ** (bucket + 1));
  }
  return null;
}

function sum(hours: readonly HourCounts[]): HealthFigures {
  const latency: LatencyHistogram = {};
  let attempts = 0;
  let succeeded = 0;
  for (const hour of hours) {
    attempts += hour.attempts;
    succeeded += hour.succeeded;
    for (const [bucket, count] of Object.entries(hour.latency)) latency[bucket] = (latency[bucket] ?? 0) + count;
  }
  return { attempts, succeeded, successRate: attempts === 0 ? null : succeeded / attempts, p95Ms: p95Of(latency) };
}

function window(starts: readonly Date[], size: number, hours: readonly HourCounts[]): HealthWindow {
  const from = starts[0]!;
  const within = (start: Date) => (hour: HourCounts) =>
    hour.hour.getTime() >= start.getTime() && hour.hour.getTime() < start.getTime() + size;
  return {
    from,
    ...sum(hours.filter((hour) => hour.hour.getTime() >= from.getTime())),
    buckets: starts.map((start) => ({ start, ...sum(hours.filter(within(start))) })),
  };
}

/** Both windows from the endpoint's hours since `healthStart(now)` (hours without attempts may be missing). */
export function endpointHealth(now: Date, hours: readonly HourCounts[]): EndpointHealth {
  return {
    at: now,
    last24h: window(bucketStarts('hour', now), HOUR_MS, hours),
    last7d: window(bucketStarts('day', now), DAY_MS, hours),
  };
}
