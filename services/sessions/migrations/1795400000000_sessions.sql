-- Up Migration
-- Projects own one flow configuration with two independent pointers (test, live) to frozen versions.
CREATE TABLE projects (
  id           text PRIMARY KEY,
  account_id   text        NOT NULL,
  name         text        NOT NULL,
  last_version integer     NOT NULL DEFAULT 0,
  test_version integer,
  live_version integer,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_account_idx ON projects (account_id);

-- A published version is frozen: rows are only ever inserted.
CREATE TABLE config_versions (
  project_id   text        NOT NULL REFERENCES projects (id),
  version      integer     NOT NULL,
  mode         text        NOT NULL CHECK (mode IN ('test', 'live')),
  config       jsonb       NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, version)
);

CREATE TABLE sessions (
  id             text PRIMARY KEY,
  account_id     text        NOT NULL,
  mode           text        NOT NULL CHECK (mode IN ('test', 'live')),
  project_id     text        NOT NULL,
  config_version integer     NOT NULL,
  status         text        NOT NULL CHECK (status IN ('pending', 'in_progress', 'approved', 'rejected', 'expired', 'abandoned', 'canceled')),
  external_ref   text,
  link_token     text        NOT NULL UNIQUE,
  api_key_id     text        NOT NULL,
  expires_at     timestamptz NOT NULL,
  redeemed_at    timestamptz,
  -- Abandonment deadline: pushed by the flow-runner's activity while in_progress.
  idle_deadline  timestamptz,
  result         jsonb,
  completed_at   timestamptz,
  created_at     timestamptz NOT NULL,
  FOREIGN KEY (project_id, config_version) REFERENCES config_versions (project_id, version),
  CHECK ((completed_at IS NULL) = (status IN ('pending', 'in_progress')))
);
-- Keyset pagination, newest first, per account and mode.
CREATE INDEX sessions_list_idx ON sessions (account_id, mode, created_at DESC, id DESC);
-- Usage and CSV export by month.
CREATE INDEX sessions_account_created_idx ON sessions (account_id, created_at, id);
-- Timers: only the rows that can still fire are indexed.
CREATE INDEX sessions_expiry_idx ON sessions (expires_at) WHERE status = 'pending';
CREATE INDEX sessions_idle_idx ON sessions (idle_deadline) WHERE status = 'in_progress';

-- The balance is a ledger; `balances` is the running total kept in the same transaction as each
-- ledger row, and the row lock that serialises concurrent debits. It can never go negative.
CREATE TABLE balance_ledger (
  id         bigserial PRIMARY KEY,
  account_id text        NOT NULL,
  kind       text        NOT NULL CHECK (kind IN ('credit', 'debit')),
  tokens     integer     NOT NULL CHECK (tokens > 0),
  session_id text        UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'debit') = (session_id IS NOT NULL))
);
CREATE INDEX balance_ledger_account_idx ON balance_ledger (account_id, created_at);

CREATE TABLE balances (
  account_id text PRIMARY KEY,
  balance    bigint      NOT NULL CHECK (balance >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Idempotency records, scoped per account, mode and API key. `response_status` NULL = in flight.
CREATE TABLE idempotency_records (
  account_id      text        NOT NULL,
  mode            text        NOT NULL,
  api_key_id      text        NOT NULL,
  idempotency_key text        NOT NULL,
  request_hash    text        NOT NULL,
  owner           text        NOT NULL,
  response_status integer,
  response_body   jsonb,
  locked_at       timestamptz NOT NULL DEFAULT now(),
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, mode, api_key_id, idempotency_key)
);
CREATE INDEX idempotency_records_created_idx ON idempotency_records (created_at);

-- Down Migration
DROP TABLE idempotency_records;
DROP TABLE balances;
DROP TABLE balance_ledger;
DROP TABLE sessions;
DROP TABLE config_versions;
DROP TABLE projects;
