-- Up Migration
-- A member's own security events are logged without an account (a failed sign-in names no account);
-- the account's audit page shows those of its members, found by who acted.
CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, id DESC) WHERE account_id IS NULL;

-- Down Migration
DROP INDEX audit_log_actor_idx;
