import { addDays, addYears, isoToDays, daysToIso } from './dates';
import type { Random } from './random';

export type Sex = 'M' | 'F' | 'X';

/**
 * Name pools for generated holders: common Argentine surnames with their accents, Ñ in every position
 * (ÑANCUCHEO, PEÑA, NÚÑEZ), a diaeresis (MÜLLER), an apostrophe (D'ALESSANDRO) and compound surnames
 * with spaces (DE LA FUENTE, VILLA REAL), because each one is a way for a reader or a comparison to go
 * wrong. No list is anyone's data: any combination is random.
 */
const SURNAMES = [
  'GONZÁLEZ',
  'RODRÍGUEZ',
  'GÓMEZ',
  'FERNÁNDEZ',
  'LÓPEZ',
  'DÍAZ',
  'MARTÍNEZ',
  'PÉREZ',
  'GARCÍA',
  'SÁNCHEZ',
  'ROMERO',
  'SOSA',
  'ÁLVAREZ',
  'TORRES',
  'RUIZ',
  'RAMÍREZ',
  'FLORES',
  'BENÍTEZ',
  'ACOSTA',
  'MEDINA',
  'HERRERA',
  'SUÁREZ',
  'AGUIRRE',
  'GIMÉNEZ',
  'GUTIÉRREZ',
  'PEREYRA',
  'MOLINA',
  'CASTRO',
  'ORTIZ',
  'SILVA',
  'NÚÑEZ',
  'PEÑA',
  'MUÑOZ',
  'IBÁÑEZ',
  'PEÑALOZA',
  'ÑANCUCHEO',
  'CARDOZO',
  'QUIROGA',
  'ROSSI',
  'ESPÓSITO',
  "D'ALESSANDRO",
  'MÜLLER',
  'DE LA FUENTE',
  'VILLA REAL',
  'CASTAÑEDA',
  'BRIZUELA',
] as const;

const GIVEN_NAMES: Record<'M' | 'F', readonly string[]> = {
  F: [
    'MARÍA JOSÉ',
    'ANA LUCÍA',
    'SOFÍA',
    'MARTINA',
    'VALENTINA',
    'CAMILA',
    'FLORENCIA',
    'AGUSTINA',
    'MARÍA VICTORIA',
    'JULIETA',
    'LUCÍA',
    'BEGOÑA',
    'NOELIA',
    'ROCÍO',
    'MÓNICA',
    'INÉS',
    'SOLEDAD',
    'AYELÉN',
    'MARÍA DE LOS ÁNGELES',
    'ZOE',
  ],
  M: [
    'JUAN CARLOS',
    'JOSÉ LUIS',
    'JOAQUÍN',
    'AGUSTÍN',
    'MATÍAS',
    'NICOLÁS',
    'TOMÁS',
    'SEBASTIÁN',
    'MARTÍN',
    'LUCAS',
    'FACUNDO',
    'GASTÓN',
    'RAMÓN',
    'IÑAKI',
    'ÁNGEL',
    'JERÓNIMO',
    'BRUNO',
    'ESTEBAN',
    'JUAN PABLO',
    'NAHUEL',
  ],
};

/** Names chosen by people whose DNI says X (Ley 26.743, Decreto 476/2021). */
const NEUTRAL_NAMES = ['ARIEL', 'CRUZ', 'ALEX', 'SASHA', 'NOA', 'IARA', 'ROMÁN', 'RENÉ'] as const;

export interface Person {
  surname: string;
  given_names: string;
  sex: Sex;
  birth_date: string;
  /** The DNI number, digits only (7 or 8). */
  dni_number: string;
}

export function generateSurname(random: Random): string {
  const first = random.pick(SURNAMES);
  // About one in five Argentines carry two surnames on the document.
  if (!random.chance(0.2)) return first;
  const second = random.pick(SURNAMES);
  return second === first ? first : `${first} ${second}`;
}

export function generateGivenNames(random: Random, sex: Sex): string {
  if (sex === 'X') {
    const first = random.pick(NEUTRAL_NAMES);
    return random.chance(0.3) ? `${first} ${random.pick(NEUTRAL_NAMES)}`.replace(`${first} ${first}`, first) : first;
  }
  const pool = GIVEN_NAMES[sex];
  const first = random.pick(pool);
  if (first.includes(' ') || !random.chance(0.3)) return first;
  const second = random.pick(pool);
  return second === first || second.includes(' ') ? first : `${first} ${second}`;
}

/**
 * A DNI number that fits the birth year: numbers were handed out roughly in order of birth (about 20
 * million for 1969, 40 million for 2000); a holder born before the late 1950s has a 7-digit number, which
 * a CUIL pads to eight. Foreign residents get numbers from 92 million up.
 */
export function dniNumberFor(random: Random, birthDate: string, foreignResident: boolean): string {
  if (foreignResident) return String(random.int(92_000_000, 95_999_999));
  const year = Number(birthDate.slice(0, 4));
  const base = Math.max(1_000_000, Math.round((year - 1945) * 830_000 + random.int(-400_000, 400_000)));
  return String(Math.min(base, 58_999_999));
}

/** Age between 16 and 90 at `referenceDate`, uniformly by day. */
export function generateBirthDate(random: Random, referenceDate: string): string {
  const latest = isoToDays(addYears(referenceDate, -16));
  const earliest = isoToDays(addYears(referenceDate, -90));
  return daysToIso(random.int(earliest, latest));
}

export function generatePerson(random: Random, referenceDate: string, options: { foreignResident?: boolean } = {}): Person {
  const sex = random.weighted<Sex>([
    ['F', 0.46],
    ['M', 0.46],
    ['X', 0.08],
  ]);
  const birthDate = generateBirthDate(random, referenceDate);
  return {
    surname: generateSurname(random),
    given_names: generateGivenNames(random, sex),
    sex,
    birth_date: birthDate,
    dni_number: dniNumberFor(random, birthDate, options.foreignResident ?? false),
  };
}

/** A date uniformly between two dates, both included. */
export function dateBetween(random: Random, from: string, to: string): string {
  const start = isoToDays(from);
  const end = isoToDays(to);
  if (end < start) throw new Error(`empty date range ${from}..${to}`);
  return daysToIso(random.int(start, end));
}

/**
 * An issue date such that the document, valid `validityYears`, is expired (or not) at `referenceDate`,
 * issued no earlier than `notBefore` and not before the holder turned `minimumAge`.
 */
export function issueDateFor(
  random: Random,
  options: {
    referenceDate: string;
    birthDate: string;
    validityYears: number;
    expired: boolean;
    notBefore: string;
    notAfter?: string;
    minimumAge?: number;
  },
): string {
  const adult = addYears(options.birthDate, options.minimumAge ?? 16);
  const floor = adult > options.notBefore ? adult : options.notBefore;
  const ceiling =
    options.notAfter !== undefined && options.notAfter < options.referenceDate ? options.notAfter : options.referenceDate;
  // Still valid on the reference date ⇔ issued after (reference − validity).
  const validFrom = addDays(addYears(options.referenceDate, -options.validityYears), 1);
  if (options.expired) {
    const latest = addDays(validFrom, -1);
    const upper = latest < ceiling ? latest : ceiling;
    return dateBetween(random, floor <= upper ? floor : upper, upper);
  }
  const lower = validFrom > floor ? validFrom : floor;
  return dateBetween(random, lower <= ceiling ? lower : ceiling, ceiling);
}

/** Decreto 476/2021 (21 July 2021) opened the X marker on the DNI and passport. */
export const SEX_X_AVAILABLE_FROM = '2021-07-21';

/**
 * A document issued before the X marker existed says M or F: a holder drawn as X gets M or F (and a
 * matching given name) on such a document.
 */
export function settleSexForIssueDate(random: Random, person: Person, issueDate: string): Person {
  if (person.sex !== 'X' || issueDate >= SEX_X_AVAILABLE_FROM) return person;
  const sex: Sex = random.chance(0.5) ? 'F' : 'M';
  return { ...person, sex, given_names: generateGivenNames(random, sex) };
}
