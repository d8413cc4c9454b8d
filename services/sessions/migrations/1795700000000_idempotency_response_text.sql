-- Up Migration
-- A replayed response must be byte for byte the first one (same key order). jsonb reorders keys, so
-- the response is kept as the exact text that was sent. Records written before keep jsonb's order.
ALTER TABLE idempotency_records ALTER COLUMN response_body TYPE text USING response_body::text;

-- Down Migration
ALTER TABLE idempotency_records ALTER COLUMN response_body TYPE jsonb USING response_body::jsonb;
