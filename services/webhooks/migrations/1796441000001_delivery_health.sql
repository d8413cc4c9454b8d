-- Up Migration
-- An endpoint's health (issue 41): attempts, success rate and p95 latency by hour over 24 h and by day over
-- 7 days. Measured on 5,000,000 attempts of one endpoint over a year (docs/decisions.md): a direct query of
-- 7 days (about 96,000 attempts) took 170–260 ms even as an index-only scan, so each closed hour is rolled up
-- once, by the first read that needs it, into `delivery_hours`; a read then takes at most 168 rows and the
-- attempts of the hour under way (and the minute of grace before it).
--
-- The endpoint's log index carries what the roll-up, the hour under way and the retry of failed deliveries
-- read, so they read no row of the table (an index-only scan); it replaces the index of the same key.
CREATE INDEX deliveries_endpoint_cover_idx ON deliveries (account_id, endpoint_id, created_at DESC, id DESC)
  INCLUDE (status, http_status, duration_ms, error, event_id);
DROP INDEX deliveries_endpoint_idx;

-- One row per endpoint and closed hour of the window read (hours without attempts too, so a read knows
-- which hours are done). `latency`: how many answered attempts fell in each bucket of ~10% width
-- ({"bucket": count}; domain/health.ts), so a day's or a week's p95 is read off the merged counts.
CREATE TABLE delivery_hours (
  endpoint_id text        NOT NULL,
  hour        timestamptz NOT NULL,
  account_id  text        NOT NULL,
  attempts    integer     NOT NULL,
  succeeded   integer     NOT NULL,
  latency     jsonb       NOT NULL,
  PRIMARY KEY (endpoint_id, hour)
);

-- Down Migration
DROP TABLE IF EXISTS delivery_hours;
CREATE INDEX IF NOT EXISTS deliveries_endpoint_idx ON deliveries (account_id, endpoint_id, created_at DESC, id DESC);
DROP INDEX IF EXISTS deliveries_endpoint_cover_idx;
