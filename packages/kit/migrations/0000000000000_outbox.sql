-- Up Migration
-- Transactional outbox (docs/design.md "Messaging"): rows are written in the same transaction as the
-- state change they announce and published by the relay with publisher confirms.
CREATE TABLE outbox (
  id           bigserial PRIMARY KEY,
  event_id     text        NOT NULL UNIQUE,
  routing_key  text        NOT NULL,
  payload      jsonb       NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX outbox_unpublished_idx ON outbox (id) WHERE published_at IS NULL;

-- Down Migration
DROP TABLE outbox;
