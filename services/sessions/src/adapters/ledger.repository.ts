import type { AccountId, SessionId } from '@idv/contracts';
import type { Queryable } from '@idv/kit';

/** Adds a credit to the ledger and the running balance; run inside a transaction. */
export async function credit(db: Queryable, accountId: AccountId, tokens: number, reason?: string): Promise<number> {
  await db.query("INSERT INTO balance_ledger (account_id, kind, tokens, reason) VALUES ($1, 'credit', $2, $3)", [
    accountId,
    tokens,
    reason ?? null,
  ]);
  const { rows } = await db.query<{ balance: number }>(
    `INSERT INTO balances (account_id, balance) VALUES ($1, $2)
     ON CONFLICT (account_id) DO UPDATE SET balance = balances.balance + EXCLUDED.balance, updated_at = now()
     RETURNING balance`,
    [accountId, tokens],
  );
  return rows[0]!.balance;
}

/**
 * Debits one token for a session, or returns false when the balance is empty. The conditional
 * UPDATE takes the balance row lock, so concurrent debits serialise and the total never goes
 * below zero. Run inside the transaction that creates the session.
 */
export async function debitForSession(db: Queryable, accountId: AccountId, sessionId: SessionId): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH debited AS (
       UPDATE balances SET balance = balance - 1, updated_at = now()
        WHERE account_id = $1 AND balance >= 1 RETURNING account_id)
     INSERT INTO balance_ledger (account_id, kind, tokens, session_id)
     SELECT account_id, 'debit', 1, $2 FROM debited`,
    [accountId, sessionId],
  );
  return rowCount === 1;
}

export async function balanceOf(db: Queryable, accountId: AccountId): Promise<number> {
  const { rows } = await db.query<{ balance: number }>('SELECT balance FROM balances WHERE account_id = $1', [accountId]);
  return rows[0]?.balance ?? 0;
}

export interface LedgerRow {
  id: number;
  kind: 'credit' | 'debit';
  tokens: number;
  reason: string | null;
  sessionId: SessionId | null;
  createdAt: Date;
}

/** A page of an account's ledger, newest first, older than the entry `before` when given. */
export async function ledgerPage(
  db: Queryable,
  accountId: AccountId,
  before: number | null,
  limit: number,
): Promise<LedgerRow[]> {
  const { rows } = await db.query<{
    id: string;
    kind: 'credit' | 'debit';
    tokens: number;
    reason: string | null;
    session_id: SessionId | null;
    created_at: Date;
  }>(
    `SELECT id, kind, tokens, reason, session_id, created_at FROM balance_ledger
      WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [accountId, before, limit],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    kind: row.kind,
    tokens: row.tokens,
    reason: row.reason,
    sessionId: row.session_id,
    createdAt: row.created_at,
  }));
}

/** Tokens debited from an account since `since` (whatever the sessions' dates). */
export async function debitedSince(db: Queryable, accountId: AccountId, since: Date): Promise<number> {
  const { rows } = await db.query<{ tokens: string }>(
    "SELECT COALESCE(SUM(tokens), 0) AS tokens FROM balance_ledger WHERE account_id = $1 AND kind = 'debit' AND created_at >= $2",
    [accountId, since],
  );
  return Number(rows[0]!.tokens);
}

/** Tokens debited for sessions created in [from, to). */
export async function tokensDebited(db: Queryable, accountId: AccountId, from: Date, to: Date): Promise<number> {
  const { rows } = await db.query<{ tokens: number }>(
    `SELECT COALESCE(SUM(l.tokens), 0)::bigint AS tokens
       FROM balance_ledger l JOIN sessions s ON s.id = l.session_id
      WHERE l.account_id = $1 AND l.kind = 'debit' AND s.created_at >= $2 AND s.created_at < $3`,
    [accountId, from, to],
  );
  return rows[0]?.tokens ?? 0;
}
