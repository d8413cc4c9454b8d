-- Up Migration
-- E-mailed links also reset a password (30 minutes) and sign a person in without it (15 minutes).
ALTER TABLE email_tokens DROP CONSTRAINT email_tokens_purpose_check;
ALTER TABLE email_tokens ADD CONSTRAINT email_tokens_purpose_check
  CHECK (purpose IN ('confirm_email', 'reset_password', 'sign_in'));

-- Down Migration
DELETE FROM email_tokens WHERE purpose <> 'confirm_email';
ALTER TABLE email_tokens DROP CONSTRAINT email_tokens_purpose_check;
ALTER TABLE email_tokens ADD CONSTRAINT email_tokens_purpose_check CHECK (purpose IN ('confirm_email'));
