-- Up Migration
-- The owners' notices (issue 41: the balance's and the webhook circuits' e-mails), by the domain event that
-- asked for them: the consumer is idempotent by event id. `done_at` is set, with the audit entry, once every
-- owner's mail was handed to SMTP; each owner's mail is recorded as it goes, so a retry after a failure mails
-- only those not reached yet.
CREATE TABLE owner_notices (
  event_id    text PRIMARY KEY,
  account_id  text        NOT NULL,
  type        text        NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  done_at     timestamptz
);

CREATE TABLE owner_notice_mails (
  event_id text        NOT NULL,
  user_id  text        NOT NULL,
  sent_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (event_id, user_id)
);

-- Down Migration
DROP TABLE owner_notice_mails;
DROP TABLE owner_notices;
