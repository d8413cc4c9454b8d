-- Up Migration
-- A form whose effect must happen once (a key's creation): its nonce is claimed here by the first of
-- several copies sent at once; the others find it taken.
CREATE TABLE form_submissions (
  nonce      text PRIMARY KEY,
  actor_id   text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE form_submissions;
