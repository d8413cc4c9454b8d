import { domainEvents, newId } from '@idv/contracts';
import { parseThreshold } from '../src/domain/balance';
import { MESSAGES } from '../src/domain/i18n';
import { noticeLink, readNotice, type Notice } from '../src/domain/owner-notices';

describe('the low-balance threshold as the form sends it', () => {
  it('when it is empty, then the default; when a whole number from 1 to 1.000.000.000 (grouped or not), then that number', () => {
    expect(parseThreshold('')).toEqual({ tokens: null });
    expect(parseThreshold('  ')).toEqual({ tokens: null });
    expect(parseThreshold(undefined)).toEqual({ tokens: null });
    expect(parseThreshold('1')).toEqual({ tokens: 1 });
    expect(parseThreshold(' 250 ')).toEqual({ tokens: 250 });
    expect(parseThreshold('1.500')).toEqual({ tokens: 1500 });
    expect(parseThreshold('1.000.000.000')).toEqual({ tokens: 1_000_000_000 });
  });

  it('when it is anything else, then invalid', () => {
    for (const value of ['0', '-1', '1.5', '1,5', '15.00', 'abc', '1e3', '1000000001', '12 fichas', ['1'], 7]) {
      expect(parseThreshold(value)).toBe('invalid');
    }
  });
});

describe('an event read as an owners’ notice', () => {
  const accountId = newId('account');

  it('when it is a balance or circuit event, then its notice; another type is not one', () => {
    const low = domainEvents.balanceLow({ account_id: accountId, balance: 2, threshold: 3, threshold_source: 'owner' });
    expect(readNotice(low)).toEqual({
      kind: 'notice',
      notice: { kind: 'balance_low', accountId, balance: 2, threshold: 3, thresholdSource: 'owner' },
    });
    const endpointId = newId('webhookEndpoint');
    const opened = domainEvents.webhookCircuitOpened({
      account_id: accountId,
      endpoint_id: endpointId,
      url: 'https://example.com/hooks',
      at: '2026-12-01T12:00:00.000Z',
      next_attempt_at: '2026-12-01T12:15:00.000Z',
    });
    const read = readNotice(opened);
    expect(read).toMatchObject({ kind: 'notice', notice: { kind: 'circuit_opened', endpointId } });
    if (read.kind === 'notice')
      expect(noticeLink(read.notice, 'https://panel.example/')).toBe(`https://panel.example/webhooks/${endpointId}`);
    expect(readNotice(domainEvents.accountStatusChanged({ account_id: accountId, status: 'active' }))).toEqual({
      kind: 'not_a_notice',
    });
  });

  it('when its data does not fit its type, then malformed (dead-lettered, never mailed)', () => {
    const low = domainEvents.balanceLow({ account_id: accountId, balance: 2, threshold: 3, threshold_source: 'owner' });
    expect(readNotice({ ...low, data: { account_id: accountId, balance: -1 } })).toMatchObject({ kind: 'malformed' });
  });

  it('when a mail is written in either language, then it says what happened and links to where to act', () => {
    const notice: Notice = { kind: 'balance_depleted', accountId, balance: 0, threshold: 5, thresholdSource: 'default' };
    for (const locale of ['es', 'en'] as const) {
      const text = MESSAGES[locale].notices.mailText(notice, 'Ana', 'https://panel.example/balance');
      expect(text).toContain('402');
      expect(text).toContain('https://panel.example/balance');
      expect(MESSAGES[locale].notices.mailSubject(notice).length).toBeGreaterThan(10);
    }
  });
});
