-- Up Migration
-- A roll with a delay: the old key works until revokes_at, then it is refused as a revoked one.
ALTER TABLE api_keys ADD COLUMN revokes_at timestamptz;

-- Down Migration
ALTER TABLE api_keys DROP COLUMN revokes_at;
