-- Up Migration
-- Claims of a check that ended without an outcome (the work failed, or the replica died or was killed
-- holding it) since the last outcome written: the claim adds one, every outcome resets it. The job sets a
-- check aside (done, last_outcome 'dead_lettered') when it reaches the cap, but only once the session's
-- hold on the check has ended: until then a failure is taken for an outage and tried again.
ALTER TABLE registry_checks ADD COLUMN unfinished_claims integer NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE registry_checks DROP COLUMN unfinished_claims;
