/**
 * Low-balance alerts (issue 41): when a debit takes an account's balance below its threshold, and when it
 * spends the last token, the owners are told once per crossing. Pure rules; the repository keeps the state
 * (`balances`) and the use case writes the event with the debit, in its transaction, under the row's lock.
 */

/** The default threshold is this many days of use at the last 7 days' pace. */
export const DEFAULT_THRESHOLD_DAYS = 3;
/** The days whose debits make the pace (the tokens page's forecast uses the same window). */
export const PACE_WINDOW_DAYS = 7;
/** How long a computed default stays in use before a debit computes it again (it sums a week of the ledger). */
export const DEFAULT_THRESHOLD_REFRESH_MS = 3_600_000;

/** 3 days of use at the last 7 days' pace, rounded up; 0 when nothing was debited (only zero is alerted then). */
export function defaultThreshold(debitedLastWeek: number): number {
  if (debitedLastWeek <= 0) return 0;
  return Math.ceil((debitedLastWeek * DEFAULT_THRESHOLD_DAYS) / PACE_WINDOW_DAYS);
}

/** An account's alert state as stored with its balance. */
export interface BalanceAlertState {
  balance: number;
  /** The owner's threshold; null: the default is in force. */
  ownerThreshold: number | null;
  defaultThreshold: number;
  /** The `balance.low` of the current crossing was sent (re-armed once the balance is back at or above the threshold). */
  lowNotified: boolean;
  /** The `balance.depleted` of the current crossing was sent (re-armed once the balance is above zero). */
  depletedNotified: boolean;
}

export type BalanceAlert = 'low' | 'depleted';

export interface ThresholdInForce {
  threshold: number;
  source: 'owner' | 'default';
}

export function thresholdInForce(state: Pick<BalanceAlertState, 'ownerThreshold' | 'defaultThreshold'>): ThresholdInForce {
  return state.ownerThreshold !== null
    ? { threshold: state.ownerThreshold, source: 'owner' }
    : { threshold: state.defaultThreshold, source: 'default' };
}

export interface AlertDecision {
  alert: BalanceAlert | null;
  lowNotified: boolean;
  depletedNotified: boolean;
}

/**
 * After a debit (the state read after it, under the row's lock): below the threshold and not told yet,
 * `low`; at zero and not told yet, `depleted` (which stands for `low` too: one mail, the more urgent).
 * A balance back at or above a line re-arms it. A threshold set above the balance is alerted at the next debit.
 */
export function afterDebit(state: BalanceAlertState): AlertDecision {
  const { threshold } = thresholdInForce(state);
  const below = state.balance < threshold;
  if (state.balance <= 0) {
    return { alert: state.depletedNotified ? null : 'depleted', lowNotified: below, depletedNotified: true };
  }
  return { alert: below && !state.lowNotified ? 'low' : null, lowNotified: below, depletedNotified: false };
}

/** After a credit or a threshold change: nothing is sent; a line the balance is back above is re-armed. */
export function rearm(state: BalanceAlertState): AlertDecision {
  const { threshold } = thresholdInForce(state);
  return {
    alert: null,
    lowNotified: state.lowNotified && state.balance < threshold,
    depletedNotified: state.depletedNotified && state.balance <= 0,
  };
}

/** Whether the stored flags must be written. */
export function flagsChanged(state: BalanceAlertState, decision: AlertDecision): boolean {
  return state.lowNotified !== decision.lowNotified || state.depletedNotified !== decision.depletedNotified;
}
