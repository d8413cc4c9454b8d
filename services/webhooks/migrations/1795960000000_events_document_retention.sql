-- Up Migration
-- The retention sweep finds the events that still carry document data, oldest first, without reading
-- every event.
CREATE INDEX events_document_retention_idx ON events (occurred_at) WHERE (data -> 'result') ? 'document';

-- Down Migration
DROP INDEX IF EXISTS events_document_retention_idx;
