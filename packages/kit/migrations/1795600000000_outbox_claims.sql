-- Up Migration
-- A relay claims the rows it is publishing until a deadline instead of holding a transaction (and a
-- pooled connection) open while the broker confirms them; a relay that dies leaves its claim to run
-- out, and another pass publishes the rows again (consumers deduplicate by event id).
ALTER TABLE outbox ADD COLUMN claimed_until timestamptz;

-- Down Migration
ALTER TABLE outbox DROP COLUMN claimed_until;
