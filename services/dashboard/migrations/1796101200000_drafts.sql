-- Up Migration
-- A project's draft configuration, as last saved (valid or not): separate per project, never published
-- by being saved; publication freezes a copy at the sessions service.
CREATE TABLE drafts (
  project_id  text PRIMARY KEY,
  account_id  text        NOT NULL,
  config_text text        NOT NULL,
  updated_by  text        NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE drafts;
