-- Up Migration
-- A session's timeline as the flow-runner saw it (the dashboard's session page): append-only, one row per
-- thing that happened, written in the same statement or transaction as the flow change it reports.
-- No personal data: step ids, capture kinds, channels, outcomes, reason codes and message keys only
-- (`detail`), so the retention sweep never needs to touch it. No foreign key to `flows`: what retention
-- does to a flow (or its registry check) leaves its timeline as it was.
CREATE TABLE timeline_entries (
  id          bigserial   PRIMARY KEY,
  session_id  text        NOT NULL,
  account_id  text        NOT NULL,
  -- clock_timestamp(), not now(): the entries of one transaction keep their own instants.
  at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  kind        text        NOT NULL,
  step_id     text,
  attempt     integer,
  detail      jsonb       NOT NULL DEFAULT '{}'
);
-- The session page reads one session's entries in order (the account is checked on the rows found).
CREATE INDEX timeline_entries_session_idx ON timeline_entries (session_id, id);
-- A step starts once: a person going back to a choice's list does not start it again.
CREATE UNIQUE INDEX timeline_entries_step_started_idx ON timeline_entries (session_id, step_id) WHERE kind = 'step_started';

-- Down Migration
DROP TABLE timeline_entries;
