-- Up Migration
-- What each attempt sent and what came back, for the dashboard's delivery log (issue 41). Written by the
-- statement that already records the attempt (no extra round trip). Null on the rows of earlier releases
-- and on attempts that sent nothing (the circuit was open).
--
-- The request body is not stored: it is rebuilt byte for byte from the stored event, the moment of sending
-- (the envelope's `created_at`, and the signature's timestamp) and the evidence links that attempt carried
-- (made per attempt, so they are kept here). `json`, not `jsonb`, keeps the headers and links in the order
-- they were sent.
ALTER TABLE deliveries
  ADD COLUMN sent_at             timestamptz,
  ADD COLUMN request_headers     json,
  ADD COLUMN evidence_links      json,
  -- The receiver's headers, and the first 4,096 bytes of its body (cut before a split UTF-8 character)
  -- with the size of the whole body.
  ADD COLUMN response_headers    json,
  ADD COLUMN response_body       text,
  ADD COLUMN response_body_bytes integer;

-- The delivery log filtered by session: its events' ids are derived from the session's id (one per type),
-- so the filter is `event_id = ANY (…)` and reads this index instead of the endpoint's whole log.
CREATE INDEX deliveries_event_idx ON deliveries (event_id);

-- Down Migration
DROP INDEX IF EXISTS deliveries_event_idx;
ALTER TABLE deliveries
  DROP COLUMN sent_at,
  DROP COLUMN request_headers,
  DROP COLUMN evidence_links,
  DROP COLUMN response_headers,
  DROP COLUMN response_body,
  DROP COLUMN response_body_bytes;
