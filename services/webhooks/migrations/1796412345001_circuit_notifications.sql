-- Up Migration
-- When the endpoint's circuit last opened, and that it has not seen a success since (issue 41: the owner is
-- mailed when it opens and when it closes again). Set by the failure that opens a closed circuit, kept while
-- it re-opens after a failed try at the end of its period, cleared by the success that closes it: each
-- transition is decided on the locked row, so replicas announce it once.
ALTER TABLE endpoints ADD COLUMN circuit_opened_at timestamptz;

-- Down Migration
ALTER TABLE endpoints DROP COLUMN circuit_opened_at;
