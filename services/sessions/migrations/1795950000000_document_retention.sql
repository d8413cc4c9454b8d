-- Up Migration
-- Retention of `result.document` (ARTEFACT_RETENTION_DAYS after completion): the sweeper finds the sessions
-- still carrying one through this index, which holds only those rows, so a swept session leaves it.
CREATE INDEX sessions_document_retention_idx ON sessions (completed_at) WHERE result ? 'document';

-- Down Migration
DROP INDEX sessions_document_retention_idx;
