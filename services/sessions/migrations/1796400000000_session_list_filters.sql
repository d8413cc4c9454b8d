-- Up Migration
-- The dashboard's sessions list filters an account's sessions of one mode and shows them newest first. Measured on
-- 1,000,000 sessions of one account (bench/dashboard, docs/dashboard.md "The sessions list"): a filter that matches
-- few or no rows scanned the whole (account, mode, created_at) index, 0.3–0.8 s. Each filter gets an index that
-- keeps the order, so a page is read from the first matching entries whatever the filter keeps.
CREATE INDEX sessions_status_list_idx ON sessions (account_id, mode, status, created_at DESC, id DESC);
CREATE INDEX sessions_project_list_idx ON sessions (account_id, mode, project_id, created_at DESC, id DESC);
CREATE INDEX sessions_external_ref_idx ON sessions (account_id, external_ref) WHERE external_ref IS NOT NULL;

-- A session's reason codes, one row each, written in the statement that records the result: a code is found by an
-- index in the list's order instead of by reading every result (a code no session has is answered at once).
CREATE TABLE session_reasons (
  account_id  text        NOT NULL,
  mode        text        NOT NULL,
  reason_code text        NOT NULL,
  created_at  timestamptz NOT NULL,
  session_id  text        NOT NULL REFERENCES sessions (id),
  PRIMARY KEY (session_id, reason_code)
);
CREATE INDEX session_reasons_list_idx ON session_reasons (account_id, mode, reason_code, created_at DESC, session_id DESC);
INSERT INTO session_reasons (account_id, mode, reason_code, created_at, session_id)
SELECT s.account_id, s.mode, code, s.created_at, s.id
  FROM sessions s, jsonb_array_elements_text(s.result->'reason_codes') AS code
 WHERE NOT s.is_try AND jsonb_typeof(s.result->'reason_codes') = 'array'
ON CONFLICT DO NOTHING;

-- Down Migration
DROP TABLE session_reasons;
DROP INDEX sessions_external_ref_idx;
DROP INDEX sessions_project_list_idx;
DROP INDEX sessions_status_list_idx;
