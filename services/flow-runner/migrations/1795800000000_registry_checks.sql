-- Up Migration
-- Registry checks waiting on the national registry (document_ar with registryCheck). The request's data
-- is not here: it is in the flow's state, read again at every attempt, so a decision is always taken on
-- the flow as stored. One row per document step; every replica's runner claims due rows with
-- FOR UPDATE SKIP LOCKED and leases them by pushing next_attempt_at past the call's timeout, so a
-- replica that dies mid-call hands the check to another one when the lease runs out.
CREATE TABLE registry_checks (
  session_id      text        NOT NULL REFERENCES flows (session_id) ON DELETE CASCADE,
  step_id         text        NOT NULL,
  -- Sent as the registry's Idempotency-Key: every attempt of one check is the same request.
  id              text        NOT NULL UNIQUE,
  -- pending: the registry must be asked; decided: the flow holds the verdict, its delivery to the
  -- sessions service (or the release of the hold) is left; done: nothing left.
  status          text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'decided', 'done')),
  attempts        integer     NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  give_up_at      timestamptz NOT NULL,
  last_outcome    text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, step_id)
);
CREATE INDEX registry_checks_due_idx ON registry_checks (next_attempt_at) WHERE status <> 'done';

-- Down Migration
DROP TABLE registry_checks;
