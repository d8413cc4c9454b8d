-- Up Migration
-- Why an operator credited tokens, in their words (the dashboard's operator console asks for it).
ALTER TABLE balance_ledger ADD COLUMN reason text;

-- Down Migration
ALTER TABLE balance_ledger DROP COLUMN reason;
