import { domainEvents, type AccountId, type BalanceThreshold, type DomainEvent } from '@idv/contracts';
import { DAY, withTransaction, type Pool, type Queryable } from '@idv/kit';
import * as ledger from '../adapters/ledger.repository';
import {
  PACE_WINDOW_DAYS,
  afterDebit,
  defaultThreshold,
  flagsChanged,
  rearm,
  thresholdInForce,
  type BalanceAlertState,
} from '../domain/balance-alerts';

const weekBefore = (now: Date) => new Date(now.getTime() - PACE_WINDOW_DAYS * DAY);

/**
 * Decides the balance's alert after a live session's debit, in the transaction that debited (the create's single
 * statement debits with the insert): the debit's UPDATE holds the balance row's lock until commit, so of a burst
 * of parallel debits exactly one sees the crossing (the next waits and reads the flag it set). Usually nothing to
 * write. A default threshold over an hour old is computed again from the last 7 days' debits (this one included).
 */
export async function alertAfterDebit(
  db: Queryable,
  accountId: AccountId,
  debited: ledger.DebitedBalance,
  now: Date,
): Promise<void> {
  const fresh = debited.defaultStale ? defaultThreshold(await ledger.debitedSince(db, accountId, weekBefore(now))) : null;
  const state: BalanceAlertState = fresh === null ? debited : { ...debited, defaultThreshold: fresh };
  const decision = afterDebit(state);
  if (fresh === null && decision.alert === null && !flagsChanged(state, decision)) return;
  const events: DomainEvent[] = [];
  if (decision.alert) {
    const { threshold, source } = thresholdInForce(state);
    const data = { account_id: accountId, balance: state.balance, threshold, threshold_source: source };
    events.push(decision.alert === 'low' ? domainEvents.balanceLow(data, now) : domainEvents.balanceDepleted(data, now));
  }
  await ledger.saveAlertState(db, accountId, { ...decision, defaultThreshold: fresh }, events);
}

/** After a credit, in its transaction: the lines the balance is back above are re-armed. */
export async function rearmAlerts(db: Queryable, accountId: AccountId): Promise<void> {
  const state = await ledger.lockAlertState(db, accountId);
  if (!state) return;
  const decision = rearm(state);
  if (flagsChanged(state, decision)) await ledger.saveAlertState(db, accountId, { ...decision, defaultThreshold: null }, []);
}

/**
 * The owner's threshold (null: back to the default). A threshold at or below the balance re-arms the low
 * alert; one above it is alerted at the next debit (nothing is sent from here).
 */
export async function setBalanceThreshold(
  pool: Pool,
  accountId: AccountId,
  tokens: number | null,
  now = new Date(),
): Promise<BalanceThreshold> {
  await withTransaction(pool, async (tx) => {
    await ledger.setLowThreshold(tx, accountId, tokens);
    await rearmAlerts(tx, accountId);
  });
  const debited = await ledger.debitedSince(pool, accountId, weekBefore(now));
  return { account_id: accountId, threshold: tokens, default_threshold: defaultThreshold(debited) };
}
