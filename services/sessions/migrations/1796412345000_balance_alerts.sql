-- Up Migration
-- Low-balance alerts (issue 41): the owner's threshold (NULL: the default, 3 days at the last 7 days' pace),
-- the default as last computed (refreshed at most hourly by a debit, so a debit does not sum a week of the
-- ledger each time), and whether each alert was sent for the current crossing. The flags change under the
-- balance row's lock, in the transaction of the debit or credit that decides them: one event per crossing.
ALTER TABLE balances
  ADD COLUMN low_threshold bigint CHECK (low_threshold IS NULL OR low_threshold > 0),
  ADD COLUMN default_threshold bigint NOT NULL DEFAULT 0 CHECK (default_threshold >= 0),
  ADD COLUMN default_threshold_at timestamptz,
  ADD COLUMN low_notified boolean NOT NULL DEFAULT false,
  ADD COLUMN depleted_notified boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE balances
  DROP COLUMN low_threshold,
  DROP COLUMN default_threshold,
  DROP COLUMN default_threshold_at,
  DROP COLUMN low_notified,
  DROP COLUMN depleted_notified;
