-- Up Migration
-- "Retry every failed delivery of an endpoint in a time range" (issue 41). A retry is a row here and one
-- message of kind 'retry' per event it sends again, all inserted by the transaction that starts it (so a
-- crash leaves all of it or none), each due at its own time (`interval_ms` apart: the pace the receiver
-- gets). The dispatcher sends them as any message; the progress is counted off the messages.
CREATE TABLE retry_jobs (
  id           text        PRIMARY KEY,
  account_id   text        NOT NULL,
  endpoint_id  text        NOT NULL REFERENCES endpoints (id),
  range_from   timestamptz NOT NULL,
  range_to     timestamptz NOT NULL,
  total        integer     NOT NULL DEFAULT 0,
  interval_ms  integer     NOT NULL CHECK (interval_ms > 0),
  created_at   timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  CHECK (range_from < range_to)
);
CREATE INDEX retry_jobs_endpoint_idx ON retry_jobs (account_id, endpoint_id, created_at DESC, id DESC);

ALTER TABLE messages ADD COLUMN retry_job_id text REFERENCES retry_jobs (id);
ALTER TABLE messages DROP CONSTRAINT messages_kind_check;
ALTER TABLE messages ADD CONSTRAINT messages_kind_check CHECK (kind IN ('event', 'test', 'redeliver', 'retry'));
ALTER TABLE messages ADD CONSTRAINT messages_retry_job_check CHECK ((kind = 'retry') = (retry_job_id IS NOT NULL));
-- Exactly once per event in a retry, whatever happens to the process that starts it; also the progress's index.
CREATE UNIQUE INDEX messages_retry_job_event_uq ON messages (retry_job_id, event_id) WHERE retry_job_id IS NOT NULL;

-- Down Migration
DROP INDEX IF EXISTS messages_retry_job_event_uq;
DELETE FROM messages WHERE kind = 'retry';
ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_retry_job_check;
ALTER TABLE messages DROP CONSTRAINT messages_kind_check;
ALTER TABLE messages ADD CONSTRAINT messages_kind_check CHECK (kind IN ('event', 'test', 'redeliver'));
ALTER TABLE messages DROP COLUMN retry_job_id;
DROP TABLE retry_jobs;
