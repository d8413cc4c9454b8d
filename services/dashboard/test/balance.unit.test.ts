import { daysLeft, ledgerCursor } from '../src/domain/balance';

describe('how long the tokens last', () => {
  test('when 14 tokens were used in the last 7 days and 30 are left, then they last 15 days', () => {
    expect(daysLeft(30, 14)).toBe(15);
  });

  test('when none were used in the last 7 days, then there is no pace to project', () => {
    expect(daysLeft(30, 0)).toBeNull();
  });

  test('when the balance is spent, then 0 days, whatever the pace', () => {
    expect(daysLeft(0, 0)).toBe(0);
    expect(daysLeft(0, 70)).toBe(0);
  });

  test('when fewer are left than a day takes, then 0 days', () => {
    expect(daysLeft(5, 70)).toBe(0);
  });
});

describe("the ledger's cursor", () => {
  test('when it is a positive id, then it is taken; anything else is the newest page', () => {
    expect(ledgerCursor('42')).toBe(42);
    for (const value of [undefined, '', '0', '-1', '1e3', 'abc', ['1', '2'], '9'.repeat(20)])
      expect(ledgerCursor(value)).toBeNull();
  });
});
