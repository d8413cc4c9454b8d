/**
 * How long an account's tokens last at its recent pace: the balance over the last 7 days' daily debits,
 * in whole days. Null when nothing was debited in those days (no pace to project), 0 when the balance is
 * spent.
 */
export function daysLeft(balance: number, debitedLast7Days: number): number | null {
  if (balance <= 0) return 0;
  if (debitedLast7Days <= 0) return null;
  return Math.floor(balance / (debitedLast7Days / 7));
}

/** The ledger's cursor as a query gives it: a positive id, else the newest page. */
export function ledgerCursor(value: unknown): number | null {
  return typeof value === 'string' && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : null;
}
