import { isAnomalous } from '../src/jobs/ledger-audit';

describe('ledger audit', () => {
  it('when the balance equals its ledger, then the account is fine; otherwise, or when negative, it is an anomaly', () => {
    expect(isAnomalous({ accountId: 'acct_1', balance: 3, ledger: 3 })).toBe(false);
    expect(isAnomalous({ accountId: 'acct_1', balance: 4, ledger: 3 })).toBe(true);
    expect(isAnomalous({ accountId: 'acct_1', balance: -1, ledger: -1 })).toBe(true);
  });
});
