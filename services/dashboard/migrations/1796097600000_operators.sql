-- Up Migration
-- The service's own operators: separate from the integrators' users, created with the CLI, and never
-- past the password without their TOTP code.
CREATE TABLE operators (
  id                 text PRIMARY KEY,
  email              text        NOT NULL,
  name               text        NOT NULL,
  password_hash      text        NOT NULL,
  -- The TOTP secret, sealed with the dashboard's key ring (AES-256-GCM); enrolled once a code matched.
  totp_secret_sealed text,
  totp_enrolled_at   timestamptz,
  -- The last 30-second step whose code was accepted: a code works once.
  totp_last_step     bigint,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX operators_email_idx ON operators (lower(email));

-- A signed-in operator's browser; `second_factor_at` is null until the TOTP code was given.
CREATE TABLE operator_sign_ins (
  id_hash          text PRIMARY KEY,
  operator_id      text        NOT NULL REFERENCES operators (id),
  second_factor_at timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_seen_at     timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  address          text
);
CREATE INDEX operator_sign_ins_operator_idx ON operator_sign_ins (operator_id);

-- Single-use recovery codes (hashes), shown once at enrolment.
CREATE TABLE recovery_codes (
  owner_id   text        NOT NULL,
  code_hash  text        NOT NULL,
  used_at    timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner_id, code_hash)
);

-- Down Migration
DROP TABLE recovery_codes;
DROP TABLE operator_sign_ins;
DROP TABLE operators;
