-- Up Migration
-- The claim skips endpoints already at their in-flight cap: carrying endpoint_id in the due index lets
-- it do so from the index alone, so a hanging endpoint's backlog costs other endpoints nothing.
CREATE INDEX messages_due_cover_idx ON messages (next_attempt_at) INCLUDE (endpoint_id) WHERE status = 'pending';
DROP INDEX messages_due_idx;
-- Internal message ids are made by the database (messages are never public).
ALTER TABLE messages ALTER COLUMN id SET DEFAULT 'msg_' || replace(gen_random_uuid()::text, '-', '');

-- Down Migration
ALTER TABLE messages ALTER COLUMN id DROP DEFAULT;
CREATE INDEX messages_due_idx ON messages (next_attempt_at) WHERE status = 'pending';
DROP INDEX messages_due_cover_idx;
