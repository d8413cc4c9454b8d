-- Up Migration
-- One row per redeemed session: the person's progress through the frozen configuration.
CREATE TABLE flows (
  session_id    text PRIMARY KEY,
  account_id    text        NOT NULL,
  mode          text        NOT NULL CHECK (mode IN ('test', 'live')),
  -- SHA-256 of the lt_ token, so the same browser reopening the link is sent to its flow.
  token_hash    text        NOT NULL UNIQUE,
  -- SHA-256 of the random secret in the browser's binding cookie; the secret itself is never stored.
  binding_hash  text        NOT NULL,
  csrf_token    text        NOT NULL,
  config        jsonb       NOT NULL,
  state         jsonb       NOT NULL,
  status        text        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'approved', 'rejected')),
  locale        text        NOT NULL DEFAULT 'es',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  resolved_at   timestamptz
);

-- One-time codes of otp_email / otp_whatsapp steps: only a salted hash of the code is kept.
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

-- Down Migration
DROP TABLE otp_codes;
DROP TABLE flows;
