-- Up Migration
-- A request in flight is now marked by a transaction-level advisory lock on its scope, held by the
-- transaction that creates the session; the record is written in that same transaction, so it exists
-- only for a committed creation and never needs a reservation row, an owner or a lease.
DELETE FROM idempotency_records WHERE response_status IS NULL;
ALTER TABLE idempotency_records
  DROP COLUMN owner,
  DROP COLUMN locked_at,
  ALTER COLUMN response_status SET NOT NULL,
  ALTER COLUMN response_body SET NOT NULL;

-- Down Migration
ALTER TABLE idempotency_records
  ADD COLUMN owner text NOT NULL DEFAULT '',
  ADD COLUMN locked_at timestamptz NOT NULL DEFAULT now(),
  ALTER COLUMN response_status DROP NOT NULL,
  ALTER COLUMN response_body DROP NOT NULL;
