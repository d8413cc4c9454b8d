-- Up Migration
-- A session's access trail lists the audit entries that name it (personal data shown, images, evidence): by
-- account and target, newest first, without reading the account's whole log.
CREATE INDEX audit_log_target_idx ON audit_log (account_id, target, id DESC) WHERE target IS NOT NULL;

-- Down Migration
DROP INDEX audit_log_target_idx;
