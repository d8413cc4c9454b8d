-- Up Migration
-- Captured images (document sides, selfie), encrypted with AES-256-GCM under a key from config: the key
-- id, nonce and tag are kept per row so keys can rotate. Only the latest capture of each kind per
-- session is kept; a newer upload replaces the older one in the same transaction.
CREATE TABLE artefacts (
  id            text        PRIMARY KEY,
  session_id    text        NOT NULL REFERENCES flows (session_id) ON DELETE CASCADE,
  kind          text        NOT NULL CHECK (kind IN ('front', 'back', 'front_angle', 'selfie')),
  key_id        text        NOT NULL,
  iv            bytea       NOT NULL,
  tag           bytea       NOT NULL,
  ciphertext    bytea       NOT NULL,
  content_type  text        NOT NULL,
  byte_size     integer     NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (session_id, kind)
);
CREATE INDEX artefacts_created_idx ON artefacts (created_at);

-- What the readers made of each artefact (written once by the job that read it; idempotent by artefact id).
-- Extracted data is personal data: it goes with its artefact (cascade) and under the same retention.
CREATE TABLE artefact_readings (
  artefact_id   text        PRIMARY KEY REFERENCES artefacts (id) ON DELETE CASCADE,
  reading       jsonb       NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- Every download of an artefact through an evidence link: who (address, user agent), when, which.
CREATE TABLE evidence_downloads (
  id            bigserial   PRIMARY KEY,
  session_id    text        NOT NULL,
  kind          text        NOT NULL,
  artefact_id   text,
  client_address text       NOT NULL,
  user_agent    text,
  outcome       text        NOT NULL,
  downloaded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX evidence_downloads_session_idx ON evidence_downloads (session_id, downloaded_at);

-- Down Migration
DROP TABLE evidence_downloads;
DROP TABLE artefact_readings;
DROP TABLE artefacts;
