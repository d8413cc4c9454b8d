-- Up Migration
-- Endpoints belong to an account (not to a mode). Signing secrets must stay usable to sign, so they
-- are stored encrypted (AES-256-GCM, key outside the database), never hashed and never in clear.
CREATE TABLE endpoints (
  id                          text PRIMARY KEY,
  account_id                  text        NOT NULL,
  url                         text        NOT NULL,
  events                      text[]      NOT NULL,
  status                      text        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  description                 text        NOT NULL DEFAULT '',
  secret_enc                  text        NOT NULL,
  previous_secret_enc         text,
  previous_secret_expires_at  timestamptz,
  -- Circuit breaker, shared by every replica.
  consecutive_failures        integer     NOT NULL DEFAULT 0,
  circuit_open_until          timestamptz,
  created_at                  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  updated_at                  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  deleted_at                  timestamptz
);
CREATE INDEX endpoints_account_idx ON endpoints (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- One row per logical event (deterministic evt_ id): the session snapshot the envelope carries.
CREATE TABLE events (
  id          text PRIMARY KEY,
  account_id  text        NOT NULL,
  type        text        NOT NULL,
  data        jsonb       NOT NULL,
  options     jsonb       NOT NULL DEFAULT '{}',
  occurred_at timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The schedule: one row per (event, endpoint) to deliver. A worker claims due rows with
-- FOR UPDATE SKIP LOCKED and pushes next_attempt_at forward by a lease, so a crashed replica's
-- claims come due again by themselves.
CREATE TABLE messages (
  id               text PRIMARY KEY,
  account_id       text        NOT NULL,
  endpoint_id      text        NOT NULL REFERENCES endpoints (id),
  event_id         text        NOT NULL REFERENCES events (id),
  kind             text        NOT NULL CHECK (kind IN ('event', 'test', 'redeliver')),
  status           text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'dead', 'canceled')),
  attempts         integer     NOT NULL DEFAULT 0,
  last_wait_ms     integer,
  next_attempt_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  claim_token      text,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- Redelivery of the same broker message never creates a second automatic message.
CREATE UNIQUE INDEX messages_event_endpoint_uq ON messages (event_id, endpoint_id) WHERE kind = 'event';
CREATE INDEX messages_due_idx ON messages (next_attempt_at) WHERE status = 'pending';
CREATE INDEX messages_endpoint_pending_idx ON messages (endpoint_id) WHERE status = 'pending';

-- The delivery log: one row per attempt (the receiver's body is never stored).
CREATE TABLE deliveries (
  id              text PRIMARY KEY,
  account_id      text        NOT NULL,
  endpoint_id     text        NOT NULL,
  message_id      text        NOT NULL,
  event_id        text        NOT NULL,
  event_type      text        NOT NULL,
  attempt         integer     NOT NULL,
  status          text        NOT NULL CHECK (status IN ('succeeded', 'failed', 'dead')),
  http_status     integer,
  duration_ms     integer,
  error           text,
  failure_reason  text,
  created_at      timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
);
CREATE INDEX deliveries_account_idx ON deliveries (account_id, created_at DESC, id DESC);
CREATE INDEX deliveries_endpoint_idx ON deliveries (account_id, endpoint_id, created_at DESC, id DESC);

-- Sliding-window quota of test and redeliver (10 per minute per account, rejected attempts count).
CREATE TABLE admin_requests (
  account_id text        NOT NULL,
  at         timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX admin_requests_idx ON admin_requests (account_id, at);

-- Down Migration
DROP TABLE admin_requests;
DROP TABLE deliveries;
DROP TABLE messages;
DROP TABLE events;
DROP TABLE endpoints;
