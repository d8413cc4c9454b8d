import { messageText } from '../src/domain/message-text';
import { messages } from '../src/domain/i18n';
import { REASON_CODES } from '../src/domain/reason-codes';

/** The texts the dashboard's timeline shows for a `message_key`, read from the person's own catalogue. */
describe('the text of a timeline message key', () => {
  test('when a key names a text, then it is the text the pages show, in each language', () => {
    expect(messageText('es', 'document.problems.glare')).toBe(messages('es').document.problems.glare);
    expect(messageText('en', 'document.problems.glare')).toBe(messages('en').document.problems.glare);
    expect(messageText('es', 'face.reasons.expired_again')).toBe(messages('es').face.reasons.expired_again);
    expect(messageText('en', 'choiceOptionFailed')).toBe(messages('en').choiceOptionFailed);
  });

  test('when the flow ends on any reason code but the choice one, then the rejection page had a text for it in both languages', () => {
    const codes = Object.values(REASON_CODES).filter((code) => code !== 'choice_not_satisfied');
    for (const locale of ['es', 'en'] as const) {
      const missing = codes.filter((code) => typeof messageText(locale, `rejection.reasons.${code}`) !== 'string');
      expect([locale, missing]).toEqual([locale, []]);
    }
  });

  test('when a key names a group, a text with parameters, nothing, or something inherited, then there is no text', () => {
    for (const key of [
      'document.problems',
      'stepOf',
      'rejection.reasons.choice_not_satisfied',
      'document.problems.unknown',
      'document.problems.toString',
      '__proto__',
      'constructor.name',
      '',
    ]) {
      expect([key, messageText('es', key)]).toEqual([key, undefined]);
    }
  });
});
