-- Up Migration
-- A try of a draft (the dashboard's "Try it"): the pages say so in place of the test banner.
ALTER TABLE flows ADD COLUMN is_try boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE flows DROP COLUMN is_try;
