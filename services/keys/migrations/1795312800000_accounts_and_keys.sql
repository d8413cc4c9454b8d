-- Up Migration
CREATE TABLE accounts (
  id         text PRIMARY KEY,
  name       text        NOT NULL,
  email      text        NOT NULL,
  status     text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'active', 'suspended')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 of a secret is stored; the secret itself is shown once and never kept.
CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  account_id   text        NOT NULL REFERENCES accounts (id),
  name         text        NOT NULL,
  mode         text        NOT NULL CHECK (mode IN ('test', 'live')),
  scopes       text[]      NOT NULL,
  secret_hash  text        NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX api_keys_account_idx ON api_keys (account_id, created_at DESC);

-- Down Migration
DROP TABLE api_keys;
DROP TABLE accounts;
