import { withTransaction, type Pool } from '@idv/kit';

/** One account as the audit saw it: its stored balance and what its ledger adds up to. */
export interface AuditedAccount {
  accountId: string;
  balance: number;
  ledger: number;
}

/**
 * The next `limit` accounts after `after` (by account id), each with its stored balance and the sum of
 * its ledger, read in one snapshot so a debit committing meanwhile is seen on both sides or on neither.
 * Each sum walks one account's entries through `balance_ledger_account_idx`: the cost of a batch is
 * bounded by its accounts, never by the whole table.
 */
export function auditBatch(pool: Pool, after: string, limit: number): Promise<AuditedAccount[]> {
  return withTransaction(pool, async (client) => {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const { rows } = await client.query<{ account_id: string; balance: number; ledger: number }>(
      `SELECT b.account_id, b.balance::float8 AS balance,
              COALESCE((SELECT sum(CASE WHEN l.kind = 'credit' THEN l.tokens ELSE -l.tokens END)
                          FROM balance_ledger l WHERE l.account_id = b.account_id), 0)::float8 AS ledger
         FROM balances b
        WHERE b.account_id > $1
        ORDER BY b.account_id
        LIMIT $2`,
      [after, limit],
    );
    return rows.map((row) => ({ accountId: row.account_id, balance: row.balance, ledger: row.ledger }));
  });
}
