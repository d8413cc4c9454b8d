-- Up Migration
-- Retention of what was read from captures (ARTEFACT_RETENTION_DAYS): the flow keeps its verdict, reasons
-- and step statuses, and loses the document data in its state (the read document, the registry query) once
-- its last change is older than the period. `data_removed_at` marks a flow already swept, so a sweep never
-- reads it again. The index is on `created_at` (never updated) rather than `updated_at`, so the flow's
-- versioned writes stay HOT updates; `updated_at` is checked on the rows the index finds.
ALTER TABLE flows ADD COLUMN data_removed_at timestamptz;
CREATE INDEX flows_retention_idx ON flows (created_at) WHERE data_removed_at IS NULL;

-- The download audit has its own, longer retention (EVIDENCE_DOWNLOAD_RETENTION_DAYS).
CREATE INDEX evidence_downloads_at_idx ON evidence_downloads (downloaded_at);

-- Down Migration
DROP INDEX evidence_downloads_at_idx;
DROP INDEX flows_retention_idx;
ALTER TABLE flows DROP COLUMN data_removed_at;
