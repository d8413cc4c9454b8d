-- Up Migration
-- An owner's invitation of a member with a role: its link's hash, single use, 7 days.
CREATE TABLE invitations (
  token_hash  text PRIMARY KEY,
  account_id  text        NOT NULL,
  email       text        NOT NULL,
  role        text        NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
  invited_by  text        NOT NULL REFERENCES users (id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at  timestamptz
);
CREATE INDEX invitations_account_idx ON invitations (account_id, created_at DESC);

-- Down Migration
DROP TABLE invitations;
