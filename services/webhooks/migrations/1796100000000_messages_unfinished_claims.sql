-- Up Migration
-- Claims of a message that ended without an outcome (its bookkeeping failed, or the replica died or was
-- killed holding it) since its last recorded attempt: the claim adds one, recording an attempt resets it,
-- giving a claim back takes one off. The dispatch job dead-letters a message when it reaches the cap, so
-- the count is shared by replicas and survives restarts, and a message that crashes the process each
-- time it is sent leaves the queue too.
ALTER TABLE messages ADD COLUMN unfinished_claims integer NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE messages DROP COLUMN unfinished_claims;
