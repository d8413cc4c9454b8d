-- Up Migration
-- Submissions are stored over the version they were computed from (optimistic concurrency), so no
-- row lock is held across calls to code providers and to the sessions service.
ALTER TABLE flows ADD COLUMN version integer NOT NULL DEFAULT 0;

-- A step's code (only its salted hash, with its counters) now lives in the flow's state with the
-- rest of the step, so a submission is one read and at most one write. A code being entered during
-- the upgrade is asked for again: the step shows its first screen.
DROP TABLE otp_codes;

-- Down Migration
CREATE TABLE otp_codes (
  session_id    text        NOT NULL REFERENCES flows (session_id) ON DELETE CASCADE,
  step_id       text        NOT NULL,
  channel       text        NOT NULL CHECK (channel IN ('email', 'whatsapp')),
  destination   text        NOT NULL,
  code_hash     text        NOT NULL,
  expires_at    timestamptz NOT NULL,
  last_sent_at  timestamptz NOT NULL,
  sends         integer     NOT NULL DEFAULT 1,
  attempts      integer     NOT NULL DEFAULT 0,
  verified_at   timestamptz,
  PRIMARY KEY (session_id, step_id)
);
ALTER TABLE flows DROP COLUMN version;
