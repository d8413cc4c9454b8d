import { afterDebit, defaultThreshold, rearm, thresholdInForce, type BalanceAlertState } from '../src/domain/balance-alerts';

const state = (overrides: Partial<BalanceAlertState> = {}): BalanceAlertState => ({
  balance: 100,
  ownerThreshold: null,
  defaultThreshold: 0,
  lowNotified: false,
  depletedNotified: false,
  ...overrides,
});

describe('low-balance alerts', () => {
  it('when the last 7 days debited tokens, then the default is 3 days of that pace rounded up; with none, 0', () => {
    expect(defaultThreshold(0)).toBe(0);
    expect(defaultThreshold(1)).toBe(1);
    expect(defaultThreshold(7)).toBe(3);
    expect(defaultThreshold(8)).toBe(4);
    expect(defaultThreshold(700)).toBe(300);
  });

  it('when the owner set a threshold, then it is in force; otherwise the default', () => {
    expect(thresholdInForce(state({ ownerThreshold: 50, defaultThreshold: 9 }))).toEqual({ threshold: 50, source: 'owner' });
    expect(thresholdInForce(state({ defaultThreshold: 9 }))).toEqual({ threshold: 9, source: 'default' });
  });

  it('when a debit leaves the balance at the threshold, then nothing; one below it, then one low alert', () => {
    expect(afterDebit(state({ balance: 10, ownerThreshold: 10 }))).toEqual({
      alert: null,
      lowNotified: false,
      depletedNotified: false,
    });
    expect(afterDebit(state({ balance: 9, ownerThreshold: 10 }))).toEqual({
      alert: 'low',
      lowNotified: true,
      depletedNotified: false,
    });
  });

  it('when the low alert was sent, then the next debits below the threshold send nothing', () => {
    expect(afterDebit(state({ balance: 8, ownerThreshold: 10, lowNotified: true }))).toEqual({
      alert: null,
      lowNotified: true,
      depletedNotified: false,
    });
  });

  it('when a debit spends the last token, then one depleted alert (standing for low too), and none after', () => {
    expect(afterDebit(state({ balance: 0, ownerThreshold: 1 }))).toEqual({
      alert: 'depleted',
      lowNotified: true,
      depletedNotified: true,
    });
    expect(afterDebit(state({ balance: 0, ownerThreshold: 10, lowNotified: true }))).toMatchObject({ alert: 'depleted' });
    expect(afterDebit(state({ balance: 0, lowNotified: true, depletedNotified: true }))).toMatchObject({ alert: null });
  });

  it('when no threshold is in force (no use in 7 days), then only zero is alerted', () => {
    expect(afterDebit(state({ balance: 1 }))).toMatchObject({ alert: null });
    expect(afterDebit(state({ balance: 0 }))).toEqual({ alert: 'depleted', lowNotified: false, depletedNotified: true });
  });

  it('when a credit lifts the balance to the threshold or above, then the low alert re-arms; above zero, the depleted one', () => {
    const told = { ownerThreshold: 10, lowNotified: true, depletedNotified: true };
    expect(rearm(state({ ...told, balance: 10 }))).toEqual({ alert: null, lowNotified: false, depletedNotified: false });
    expect(rearm(state({ ...told, balance: 4 }))).toEqual({ alert: null, lowNotified: true, depletedNotified: false });
    expect(rearm(state({ ...told, balance: 0 }))).toEqual({ alert: null, lowNotified: true, depletedNotified: true });
  });

  it('when the threshold is raised above the balance, then nothing is sent now and the next debit alerts', () => {
    const raised = state({ balance: 20, ownerThreshold: 50 });
    expect(rearm(raised)).toMatchObject({ alert: null, lowNotified: false });
    expect(afterDebit({ ...raised, balance: 19 })).toMatchObject({ alert: 'low' });
  });
});
