import { newId } from '@idv/contracts';
import { NOTICES_MESSAGES } from '../src/domain/i18n-notices';
import { ARGENTINA_TIME_ZONE, dateTimeFormat, numberOf, timeOf } from '../src/domain/locale';
import type { Notice } from '../src/domain/owner-notices';
import { USAGE_MESSAGES } from '../src/domain/usage-messages';

const AT = new Date('2026-11-30T21:05:09Z');

describe("the dashboard's formatters", () => {
  it("when a moment is shown, then it is Argentina's time in the page's language, to the minute or to the second", () => {
    expect(timeOf('es', AT)).toBe(
      new Intl.DateTimeFormat('es-AR', { dateStyle: 'medium', timeStyle: 'short', timeZone: ARGENTINA_TIME_ZONE }).format(AT),
    );
    expect(timeOf('en', AT.toISOString(), 'second')).toBe(
      new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: ARGENTINA_TIME_ZONE }).format(AT),
    );
    expect(timeOf('en', AT, 'second')).toContain('18:05:09');
  });

  it('when the same language and options are asked for again, then the formatter made the first time is given', () => {
    const options = { month: 'long', year: 'numeric', timeZone: 'UTC' } as const;
    expect(dateTimeFormat('es', { ...options })).toBe(dateTimeFormat('es', options));
    expect(dateTimeFormat('en', options)).not.toBe(dateTimeFormat('es', options));
    expect(dateTimeFormat('es', options).format(AT)).toBe('noviembre de 2026');
  });

  it("when a number is shown, then it has the language's grouping and decimal mark", () => {
    expect(numberOf('es', 1234567)).toBe('1.234.567');
    expect(numberOf('en', 1234567)).toBe('1,234,567');
    expect(numberOf('es', 12.345, { maximumFractionDigits: 1 })).toBe('12,3');
    expect(numberOf('en', 12.345, { maximumFractionDigits: 1 })).toBe('12.3');
  });

  it("when the notices and the usage page count tokens, then they write the number in the language's digits", () => {
    const low: Notice = {
      kind: 'balance_low',
      accountId: newId('account'),
      balance: 12345,
      threshold: 20000,
      thresholdSource: 'owner',
    };
    expect(NOTICES_MESSAGES.es.mailSubject(low)).toBe('Quedan pocas fichas: 12.345 fichas');
    expect(NOTICES_MESSAGES.en.mailSubject(low)).toContain('12,345 tokens');
    expect(USAGE_MESSAGES.es.tokensDebited(2500)).toContain('Usaron 2.500 fichas');
    expect(USAGE_MESSAGES.en.tokensDebited(2500)).toContain('used 2,500 tokens');
  });
});
