/**
 * What a password must be: long enough to resist guessing, short enough to hash in bounded time, not one
 * of the passwords attackers try first, and not the address it protects.
 */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;

export type PasswordProblem = 'too_short' | 'too_long' | 'common' | 'same_as_email';

/** A few Argentine favourites the shipped (English-first) list lacks, in the same normal form. */
const LOCAL_COMMON_PASSWORDS = [
  'contraseña',
  'contrasena',
  'contraseña1',
  'contraseña123',
  'argentina',
  'argentina1',
  'argentina123',
  'argentina2022',
  'bocajuniors',
  'riverplate',
  'sanlorenzo',
  'independiente',
  'racingclub',
  'maradona10',
  'messi10',
  'messi1010',
  'buenosaires',
  'qwertyuiop',
  'holahola123',
];

/** Normal form for the comparison: case and surrounding spaces do not make a common password rare. */
const normal = (value: string) => value.trim().toLowerCase();

export function commonPasswordSet(list: Iterable<string>): ReadonlySet<string> {
  const set = new Set<string>();
  for (const entry of list) set.add(normal(entry));
  for (const entry of LOCAL_COMMON_PASSWORDS) set.add(entry);
  return set;
}

export function passwordProblem(password: string, email: string, common: ReadonlySet<string>): PasswordProblem | null {
  // Counted in characters, not UTF-16 units: an emoji is one character to the person typing it.
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return 'too_short';
  if (length > PASSWORD_MAX_LENGTH) return 'too_long';
  const normalised = normal(password);
  if (normalised === normal(email) || normalised === normal(email.split('@')[0] ?? '')) return 'same_as_email';
  if (common.has(normalised)) return 'common';
  return null;
}
