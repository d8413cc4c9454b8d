import { parseSignIn, parseSignUp } from '../src/domain/forms';
import { localeOf } from '../src/domain/i18n';
import { commonPasswordSet, passwordProblem } from '../src/domain/passwords';
import { safeLocalPath } from '../src/http/respond';

const common = commonPasswordSet(['password1234', 'qwertyuiop123']);
const good = { organisation: 'Banco Sur', name: 'Ana Pérez', email: 'ana@banco.example', password: 'tres palabras largas' };

describe('passwords', () => {
  it.each([
    ['short', 'abc123', 'too_short'],
    ['nine characters', '123456789', 'too_short'],
    ['common, in any case', 'PassWord1234', 'common'],
    ['a local favourite', 'argentina123', 'common'],
    ['the e-mail itself', 'ana@banco.example', 'same_as_email'],
    ['the e-mail in capitals', 'ANA@BANCO.EXAMPLE', 'same_as_email'],
    ['too long', 'x'.repeat(129), 'too_long'],
  ])('refuses %s', (_label, password, problem) => {
    expect(passwordProblem(password, 'ana@banco.example', common)).toBe(problem);
  });

  it('counts characters, not UTF-16 units, and accepts a long phrase', () => {
    expect(passwordProblem('🔑🔑🔑🔑🔑🔑🔑🔑🔑', 'a@b.example', common)).toBe('too_short');
    expect(passwordProblem('🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑', 'a@b.example', common)).toBeNull();
    expect(passwordProblem('caballo correcto batería', 'a@b.example', common)).toBeNull();
  });
});

describe('the sign-up form', () => {
  it('takes a complete form, trimming the texts', () => {
    const { input, errors } = parseSignUp({ ...good, name: '  Ana Pérez ' }, common);
    expect(errors).toEqual({});
    expect(input.name).toBe('Ana Pérez');
  });

  it('names every problem by field', () => {
    const { errors } = parseSignUp(
      { organisation: '', name: 'x'.repeat(201), email: 'not-an-email', password: 'password1234' },
      common,
    );
    expect(errors).toEqual({ organisation: 'required', name: 'too_long', email: 'invalid_email', password: 'common' });
  });

  it('refuses NUL and other control characters', () => {
    const { errors } = parseSignUp({ ...good, organisation: 'Banco\u0000Sur', password: 'tres palabras\u0000largas' }, common);
    expect(errors).toEqual({ organisation: 'invalid_characters', password: 'invalid_characters' });
  });

  it('reads a missing field as empty', () => {
    expect(parseSignUp({}, common).errors).toEqual({
      organisation: 'required',
      name: 'required',
      email: 'required',
      password: 'required',
    });
    expect(parseSignIn({ email: 'ana@banco.example' }).errors).toEqual({ password: 'required' });
  });
});

describe('the language', () => {
  it.each([
    [undefined, 'es'],
    ['en-US,en;q=0.9', 'en'],
    ['es-AR,en;q=0.8', 'es'],
    ['fr-FR,en;q=0.5', 'en'],
    ['de-DE', 'es'],
  ])('%s gives %s', (header, locale) => {
    expect(localeOf(header)).toBe(locale);
  });
});

describe('redirects stay on this origin', () => {
  it.each([
    ['/home', '/home'],
    ['/home?notice=x', '/home?notice=x'],
    ['//evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example/', '/'],
    ['javascript:alert(1)', '/'],
    ['/ok\r\nSet-Cookie: x=1', '/'],
  ])('%j goes to %j', (location, expected) => {
    expect(safeLocalPath(location)).toBe(expected);
  });
});
