import { MAX_BALANCE_THRESHOLD } from '@idv/contracts';

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

/**
 * The low-balance threshold as the form sends it: a whole number of tokens from 1 to the contracts' bound
 * (digits, or grouped by thousands), or empty for the default (3 days of use). Anything else is `invalid`
 * (a 422 with the form again).
 */
export function parseThreshold(value: unknown): { tokens: number | null } | 'invalid' {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return { tokens: null };
  if (typeof value !== 'string') return 'invalid';
  const text = value.trim();
  // Digits, or grouped by thousands as Argentina writes them (1.000, 1 000): never a decimal.
  if (!/^\d{1,10}$/.test(text) && !/^\d{1,3}([.\s]\d{3}){1,3}$/.test(text)) return 'invalid';
  const tokens = Number(text.replace(/[.\s]/g, ''));
  return tokens >= 1 && tokens <= MAX_BALANCE_THRESHOLD ? { tokens } : 'invalid';
}
