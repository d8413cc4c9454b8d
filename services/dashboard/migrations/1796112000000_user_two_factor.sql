-- Up Migration
-- TOTP for any user (as for operators): the secret sealed with the key ring, enrolled once a code matched,
-- the last accepted step so that a code works once.
ALTER TABLE users ADD COLUMN totp_secret_sealed text;
ALTER TABLE users ADD COLUMN totp_enrolled_at timestamptz;
ALTER TABLE users ADD COLUMN totp_last_step bigint;
-- A sign-in that gave its password but not yet its code opens nothing but the code's page.
ALTER TABLE sign_in_sessions ADD COLUMN second_factor_pending boolean NOT NULL DEFAULT false;
-- An owner's settings of the account: two-factor required for every member.
CREATE TABLE account_settings (
  account_id   text PRIMARY KEY,
  require_totp boolean     NOT NULL DEFAULT false,
  updated_by   text        NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE account_settings;
ALTER TABLE sign_in_sessions DROP COLUMN second_factor_pending;
ALTER TABLE users DROP COLUMN totp_last_step;
ALTER TABLE users DROP COLUMN totp_enrolled_at;
ALTER TABLE users DROP COLUMN totp_secret_sealed;
