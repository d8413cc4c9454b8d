-- 1,000,000 sessions of one account over the last 365 days (bench/dashboard, BENCH_SESSIONS to change the count):
-- 90% live, statuses and reason codes in the proportions of a busy integration, one external_ref each.
-- Parameters: $1 account id, $2 project id (published as version 1 in test and live), $3 api key id, $4 count.
INSERT INTO sessions (id, account_id, mode, project_id, config_version, status, external_ref, link_token, api_key_id,
                      expires_at, redeemed_at, result, completed_at, created_at)
SELECT 'vs_' || upper(lpad(to_hex(n), 26, '0')), $1, CASE WHEN n % 10 = 0 THEN 'test' ELSE 'live' END, $2, 1, st,
       'cliente-' || n, 'lt_bench_' || n, $3, created + interval '1 day',
       CASE WHEN st IN ('pending', 'expired') THEN NULL ELSE created + interval '1 minute' END,
       CASE WHEN st IN ('approved', 'rejected', 'expired', 'abandoned') THEN jsonb_build_object(
         'outcome', st,
         'reason_codes', CASE WHEN st = 'rejected'
           THEN jsonb_build_array((ARRAY['document_expired', 'document_unreadable', 'face_mismatch', 'liveness_failed',
             'document_tampered', 'registry_mismatch', 'otp_failed', 'underage', 'document_not_allowed',
             'data_mismatch'])[1 + (n / 7) % 10])
           ELSE '[]'::jsonb END,
         'steps', '[]'::jsonb) END,
       CASE WHEN st IN ('pending', 'in_progress') THEN NULL ELSE created + interval '3 minutes' END,
       created
  FROM (SELECT n, now() - (n::double precision / $4) * interval '365 days' AS created,
               CASE WHEN n % 100 < 62 THEN 'approved' WHEN n % 100 < 84 THEN 'rejected' WHEN n % 100 < 93 THEN 'expired'
                    WHEN n % 100 < 97 THEN 'abandoned' WHEN n % 100 < 99 THEN 'canceled'
                    WHEN n < 2000 THEN 'in_progress' ELSE 'approved' END AS st
          FROM generate_series(1, $4) AS n) AS g;
