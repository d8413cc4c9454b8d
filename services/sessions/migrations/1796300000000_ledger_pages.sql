-- Up Migration
-- The dashboard pages an account's ledger newest first by id (a cursor): an account with a million debits
-- is read a page at a time, not sorted whole.
CREATE INDEX balance_ledger_pages_idx ON balance_ledger (account_id, id DESC);

-- Down Migration
DROP INDEX balance_ledger_pages_idx;
