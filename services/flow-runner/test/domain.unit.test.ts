import { FlowConfigSchema } from '@idv/contracts';
import { applyOutcome, initialState, position, resolution } from '../src/domain/engine';
import { messages, pickLocale } from '../src/domain/i18n';
import { formatArMobile, normalizeArMobile } from '../src/domain/phone';
import { validateForm } from '../src/domain/steps/form';
import { codeMatches, hashCode } from '../src/domain/steps/otp';
import { renderErrorPage } from '../src/http/views/pages';
import { CHOICE_STEP, FORM_STEP, buildConfig } from './fixtures';

describe('Argentine mobile numbers', () => {
  test.each([
    ['11 2345-6789', '+5491123456789'],
    ['011 15 2345-6789', '+5491123456789'],
    ['15 2345 6789', null],
    ['(0351) 15-555-1234', '+5493515551234'],
    ['+54 9 11 2345 6789', '+5491123456789'],
    ['+54 11 2345 6789', '+5491123456789'],
    ['5491123456789', '+5491123456789'],
    ['+1 415 555 2671', null],
    ['1234', null],
    ['abc', null],
  ])('when %s is entered, then it normalizes to %s', (input, expected) => {
    expect(normalizeArMobile(input)).toBe(expected);
  });

  test('when a number is shown, then it reads as +54 9 area number', () => {
    expect(formatArMobile('+5491123456789')).toBe('+54 9 11 2345-6789');
    expect(formatArMobile('+5493515551234')).toBe('+54 9 351 555-1234');
  });
});

describe('locale', () => {
  test.each([
    [undefined, 'es'],
    ['en-US,en;q=0.9', 'en'],
    ['es-AR,en;q=0.8', 'es'],
    ['fr-FR,en;q=0.5', 'en'],
    ['de', 'es'],
    ['en;q=0.2,es;q=0.9', 'es'],
  ])('when Accept-Language is %s, then the pages are in %s', (header, locale) => {
    expect(pickLocale(header)).toBe(locale);
  });
});

describe('form validation (schema built from the field definitions)', () => {
  const t = messages('en');

  test('when every field is valid, then the data is kept as strings', () => {
    const result = validateForm(
      FORM_STEP.fields,
      { occupation: ' Doctor ', province: 'caba', birth: '2000-02-29', income: '1000', terms: 'on' },
      t,
    );
    expect(result).toEqual({
      ok: true,
      data: { occupation: 'Doctor', province: 'caba', birth: '2000-02-29', income: '1000', pep: 'false', terms: 'true' },
    });
  });

  test('when fields are missing or out of bounds, then each has its own message', () => {
    const result = validateForm(FORM_STEP.fields, { occupation: '', birth: '1800-01-01', income: '-5' }, t);
    expect(result).toEqual({
      ok: false,
      errors: {
        occupation: t.errRequired,
        province: t.errRequired,
        birth: t.errDateMin('1900-01-01'),
        income: t.errMin(0),
        terms: t.errCheckbox,
      },
    });
  });

  test('when the same form is checked in two languages and with another bound, then each gets its own messages', () => {
    const spanish = messages('es');
    expect(validateForm(FORM_STEP.fields, {}, t)).toMatchObject({ errors: { occupation: t.errRequired } });
    expect(validateForm(FORM_STEP.fields, {}, spanish)).toMatchObject({ errors: { occupation: spanish.errRequired } });
    expect(spanish.errRequired).not.toBe(t.errRequired);
    const stricter = FORM_STEP.fields.map((field) => (field.name === 'income' ? { ...field, min: 5000 } : field));
    expect(validateForm(stricter, { income: '1000' }, t)).toMatchObject({ errors: { income: t.errMin(5000) } });
    expect(validateForm(FORM_STEP.fields, { income: '1000' }, t)).not.toMatchObject({ errors: { income: expect.anything() } });
  });

  test('when a field definition is invalid, then the same schema that validates configurations refuses it', () => {
    expect(() => validateForm([{ name: 'Bad Name', type: 'text', label: 'x' }], {}, t)).toThrow();
  });
});

describe('step engine', () => {
  const config = FlowConfigSchema.parse(buildConfig([{ ...CHOICE_STEP, min: 1 }, FORM_STEP]));
  const choice = config.steps[0] as Extract<(typeof config.steps)[number], { type: 'choice' }>;

  test('when consent passes, then the choice is next; when one option passes, then the other is skipped', () => {
    const state = initialState();
    applyOutcome(state, { id: 'consent', type: 'consent' }, null, { kind: 'passed' });
    expect(position(config, state)).toMatchObject({ kind: 'choice' });
    applyOutcome(state, choice.options[1]!, choice, { kind: 'passed', verified: { phone: '+5491123456789' } });
    expect(position(config, state)).toMatchObject({ kind: 'step', step: { id: 'extra' } });
    applyOutcome(state, config.steps[1] as never, null, { kind: 'passed', formData: { occupation: 'x' } });

    expect(position(config, state)).toEqual({ kind: 'finished', outcome: 'approved' });
    expect(resolution(config, state, 'approved')).toEqual({
      outcome: 'approved',
      reason_codes: [],
      steps: [
        { id: 'consent', type: 'consent', verdict: 'approved' },
        { id: 'contact', type: 'choice', verdict: 'approved' },
        { id: 'mail', type: 'otp_email', verdict: 'skipped' },
        { id: 'phone', type: 'otp_whatsapp', verdict: 'approved' },
        { id: 'extra', type: 'form', verdict: 'approved' },
      ],
      verified_channels: { phone: '+5491123456789' },
      form_data: { occupation: 'x' },
    });
  });

  test('when every option fails, then the flow is rejected with both reasons and later steps are not reached', () => {
    const state = initialState();
    applyOutcome(state, { id: 'consent', type: 'consent' }, null, { kind: 'passed' });
    applyOutcome(state, choice.options[0]!, choice, { kind: 'failed', reason: 'email_code_attempts_exceeded' });
    expect(state.notice).toBe('option_failed');
    expect(position(config, state)).toMatchObject({ kind: 'choice' });
    applyOutcome(state, choice.options[1]!, choice, { kind: 'failed', reason: 'phone_code_expired' });

    expect(position(config, state)).toEqual({ kind: 'finished', outcome: 'rejected' });
    const body = resolution(config, state, 'rejected');
    expect(body.reason_codes).toEqual(['phone_code_expired', 'choice_not_satisfied']);
    expect(body.steps.at(-1)).toEqual({ id: 'extra', type: 'form', verdict: 'not_reached' });
  });
});

describe('codes and markup', () => {
  test('when a code is hashed, then only the same code matches and the hash does not contain it', () => {
    const stored = hashCode('123456');
    expect(stored).not.toContain('123456');
    expect(codeMatches('123456', stored)).toBe(true);
    expect(codeMatches('123457', stored)).toBe(false);
  });

  test('when user text is interpolated, then it is escaped', () => {
    const page = renderErrorPage('en', null, '<script>alert("x")</script>');
    expect(page).toContain('<p class="status-body" data-page="error">&lt;script>alert(&quot;x&quot;)&lt;/script></p>');
    expect(page).not.toContain('<script>');
  });
});
