import type { AccountId, Mode, SessionStatus } from '@idv/contracts';
import type { Queryable } from '@idv/kit';

/** Sessions created in [from, to) per UTC month (`YYYY-MM`), mode and status, tries apart. */
export async function countsByMonth(
  db: Queryable,
  accountId: AccountId,
  from: Date,
  to: Date,
): Promise<{ month: string; mode: Mode; status: SessionStatus; count: number }[]> {
  const { rows } = await db.query<{ month: string; mode: Mode; status: SessionStatus; count: number }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, mode, status, count(*)::bigint AS count
       FROM sessions
      WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 AND NOT is_try
      GROUP BY 1, mode, status`,
    [accountId, from, to],
  );
  return rows;
}

/**
 * Tokens debited for the sessions created in [from, to), per UTC month of the session's creation. The
 * sessions are the account's too (`s.account_id`): without it the join read every account's sessions of
 * the range (measured: 248 ms against 55 to 90 ms for an account of 20,000 sessions among 400,000).
 */
export async function debitsByMonth(
  db: Queryable,
  accountId: AccountId,
  from: Date,
  to: Date,
): Promise<{ month: string; tokens: number }[]> {
  const { rows } = await db.query<{ month: string; tokens: number }>(
    `SELECT to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, SUM(l.tokens)::bigint AS tokens
       FROM balance_ledger l JOIN sessions s ON s.id = l.session_id
      WHERE l.account_id = $1 AND s.account_id = $1 AND l.kind = 'debit' AND s.created_at >= $2 AND s.created_at < $3
      GROUP BY 1`,
    [accountId, from, to],
  );
  return rows;
}
