-- Up Migration
-- The dashboard's people: one row per e-mail address, whatever accounts they belong to.
CREATE TABLE users (
  id                 text PRIMARY KEY,
  email              text        NOT NULL,
  name               text        NOT NULL,
  password_hash      text        NOT NULL,
  email_confirmed_at timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
-- E-mail addresses are compared without case: Ana@x and ana@x are one person.
CREATE UNIQUE INDEX users_email_idx ON users (lower(email));

CREATE TABLE memberships (
  user_id    text        NOT NULL REFERENCES users (id),
  account_id text        NOT NULL,
  role       text        NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, account_id)
);
CREATE INDEX memberships_account_idx ON memberships (account_id);

-- A signed-in browser: only the SHA-256 of the cookie's value is kept.
CREATE TABLE sign_in_sessions (
  id_hash      text PRIMARY KEY,
  user_id      text        NOT NULL REFERENCES users (id),
  account_id   text        NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  address      text
);
CREATE INDEX sign_in_sessions_user_idx ON sign_in_sessions (user_id);

-- Single-use links sent by e-mail (confirmation, later sign-in links and password resets): hashes only.
CREATE TABLE email_tokens (
  token_hash text PRIMARY KEY,
  user_id    text        NOT NULL REFERENCES users (id),
  purpose    text        NOT NULL CHECK (purpose IN ('confirm_email')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX email_tokens_user_idx ON email_tokens (user_id, purpose);

-- Every action of an owner, member or operator: who, what, when, from which address. Append-only.
CREATE TABLE audit_log (
  id         bigserial PRIMARY KEY,
  account_id text,
  actor_id   text,
  action     text        NOT NULL,
  target     text,
  address    text,
  at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_account_idx ON audit_log (account_id, id DESC);

CREATE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only';
END;
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_is_append_only();

-- Down Migration
DROP TABLE audit_log;
DROP FUNCTION audit_log_is_append_only();
DROP TABLE email_tokens;
DROP TABLE sign_in_sessions;
DROP TABLE memberships;
DROP TABLE users;
