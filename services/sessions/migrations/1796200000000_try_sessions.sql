-- Up Migration
-- "Try it" (the dashboard): a test session on a project's draft, without publishing it. The draft is
-- frozen like a publication, so every path that reads a session's configuration reads it the same way,
-- but numbered below zero (-1, -2, … from `last_try_version`): the published numbers stay consecutive
-- and the version history never lists a try. The session is marked: never public, no event, no debit.
ALTER TABLE projects ADD COLUMN last_try_version integer NOT NULL DEFAULT 0;
ALTER TABLE config_versions ADD CONSTRAINT config_versions_try_is_test CHECK (version > 0 OR mode = 'test');
ALTER TABLE sessions ADD COLUMN is_try boolean NOT NULL DEFAULT false;
ALTER TABLE sessions ADD CONSTRAINT sessions_try_on_draft CHECK (is_try = (config_version < 0));
-- A try is started from the dashboard, by a person, not with a key (its audit log says who).
ALTER TABLE sessions ALTER COLUMN api_key_id DROP NOT NULL;
ALTER TABLE sessions ADD CONSTRAINT sessions_key_unless_try CHECK (is_try OR api_key_id IS NOT NULL);
-- The hourly cap on an account's tries counts these.
CREATE INDEX sessions_tries_idx ON sessions (account_id, created_at) WHERE is_try;

-- Down Migration
DROP INDEX sessions_tries_idx;
ALTER TABLE sessions DROP CONSTRAINT sessions_key_unless_try;
ALTER TABLE sessions ALTER COLUMN api_key_id SET NOT NULL;
ALTER TABLE sessions DROP CONSTRAINT sessions_try_on_draft;
ALTER TABLE sessions DROP COLUMN is_try;
ALTER TABLE config_versions DROP CONSTRAINT config_versions_try_is_test;
ALTER TABLE projects DROP COLUMN last_try_version;
