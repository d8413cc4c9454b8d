import type { AccountId, DomainEvent, SessionId } from '@idv/contracts';
import { outboxCtes, outboxParams, type Queryable } from '@idv/kit';
import type { BalanceAlertState } from '../domain/balance-alerts';

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

/** What a debit leaves of the balance and its alert state, read under the row's lock. */
export interface DebitedBalance extends BalanceAlertState {
  /** The stored default was computed over an hour ago (or never): compute it again with this debit. */
  defaultStale: boolean;
}

interface AlertRow {
  balance: string;
  low_threshold: string | null;
  default_threshold: string;
  low_notified: boolean;
  depleted_notified: boolean;
}

function toAlertState(row: AlertRow): BalanceAlertState {
  return {
    balance: Number(row.balance),
    ownerThreshold: row.low_threshold === null ? null : Number(row.low_threshold),
    defaultThreshold: Number(row.default_threshold),
    lowNotified: row.low_notified,
    depletedNotified: row.depleted_notified,
  };
}

/** The row `debitCtes` leaves in `debited`. */
export type DebitedRow = AlertRow & { default_stale: boolean };

export const toDebitedBalance = (row: DebitedRow | undefined): DebitedBalance | null =>
  row ? { ...toAlertState(row), defaultStale: row.default_stale } : null;

/**
 * The debit of one token for a session as two CTEs, `debited` (the balance's row after it, with its alert state;
 * empty when no token is left or `guard` is false) and `entry` (its ledger row). The conditional UPDATE takes the
 * balance row lock, so concurrent debits serialise and the total never goes below zero. Used by the statement
 * that creates a live session (its transaction writes the alert the debit decides). The arguments are SQL
 * expressions (parameters); `refreshMs` is DEFAULT_THRESHOLD_REFRESH_MS.
 */
export function debitCtes(accountId: string, sessionId: string, refreshMs: string, guard = 'true'): string {
  return `debited AS (
       UPDATE balances SET balance = balance - 1, updated_at = now()
        WHERE account_id = ${accountId} AND balance >= 1 AND ${guard}
        RETURNING account_id, balance, low_threshold, default_threshold, low_notified, depleted_notified,
                  (default_threshold_at IS NULL OR default_threshold_at < now() - make_interval(secs => ${refreshMs}::double precision / 1000))
                    AS default_stale),
     entry AS (
       INSERT INTO balance_ledger (account_id, kind, tokens, session_id)
       SELECT account_id, 'debit', 1, ${sessionId} FROM debited)`;
}

/** The balance and its alert state, locked for the caller's transaction (after a credit or a threshold change). */
export async function lockAlertState(db: Queryable, accountId: AccountId): Promise<BalanceAlertState | null> {
  const { rows } = await db.query<AlertRow>(
    `SELECT balance, low_threshold, default_threshold, low_notified, depleted_notified
       FROM balances WHERE account_id = $1 FOR UPDATE`,
    [accountId],
  );
  return rows[0] ? toAlertState(rows[0]) : null;
}

/**
 * Writes the alert flags (and a newly computed default, when given) with the alert's events, in one
 * statement of the caller's transaction: the events reach the broker only if the debit commits.
 */
export async function saveAlertState(
  db: Queryable,
  accountId: AccountId,
  state: { lowNotified: boolean; depletedNotified: boolean; defaultThreshold: number | null },
  events: readonly DomainEvent[],
): Promise<void> {
  await db.query(
    `WITH saved AS (
       UPDATE balances SET low_notified = $2, depleted_notified = $3,
              default_threshold = COALESCE($4, default_threshold),
              default_threshold_at = CASE WHEN $4::bigint IS NULL THEN default_threshold_at ELSE now() END
        WHERE account_id = $1 RETURNING 1),
     ${outboxCtes(5)}
     SELECT (SELECT count(*) FROM saved) AS saved, (SELECT count(*) FROM woken) AS woken`,
    [accountId, state.lowNotified, state.depletedNotified, state.defaultThreshold, ...outboxParams(events)],
  );
}

/** Sets the owner's threshold (null: the default); an account never credited gets its row at zero tokens. */
export async function setLowThreshold(db: Queryable, accountId: AccountId, tokens: number | null): Promise<void> {
  await db.query(
    `INSERT INTO balances (account_id, balance, low_threshold) VALUES ($1, 0, $2)
     ON CONFLICT (account_id) DO UPDATE SET low_threshold = EXCLUDED.low_threshold, updated_at = now()`,
    [accountId, tokens],
  );
}

/** The balance and the owner's threshold (null when none was set), in one read of the balance's row. */
export async function balanceAndThresholdOf(
  db: Queryable,
  accountId: AccountId,
): Promise<{ balance: number; threshold: number | null }> {
  const { rows } = await db.query<{ balance: string; low_threshold: string | null }>(
    'SELECT balance, low_threshold FROM balances WHERE account_id = $1',
    [accountId],
  );
  const row = rows[0];
  return { balance: row ? Number(row.balance) : 0, threshold: row?.low_threshold == null ? null : Number(row.low_threshold) };
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
