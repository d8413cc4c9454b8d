import { toDayMonthYear, toMrzDate } from './dates';
import type { Sex } from './identity';

/**
 * What the machine-readable parts of the generated documents carry. The layouts follow
 * docs/documents.md ("Barcode layouts", "MRZ", "CUIL"); the check digits are computed here, on their own,
 * rather than with the parsers' helpers, so the round-trip tests compare two implementations.
 */

const MRZ_WEIGHTS = [7, 3, 1] as const;

/** ICAO 9303-3 check digit: 0-9, A=10 … Z=35, '<'=0, weights 7-3-1, sum mod 10. */
export function mrzCheckDigit(text: string): string {
  let sum = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charAt(index);
    const code = char.charCodeAt(0);
    let value: number;
    if (char === '<') value = 0;
    else if (code >= 48 && code <= 57) value = code - 48;
    else if (code >= 65 && code <= 90) value = code - 55;
    else throw new Error(`'${char}' is not an MRZ character`);
    sum += value * (MRZ_WEIGHTS[index % 3] ?? 0);
  }
  return String(sum % 10);
}

/** A digit other than `digit`, for documents whose check digit is wrong on purpose. */
export function wrongDigit(digit: string, shift: number): string {
  const value = Number(digit);
  return String((value + 1 + (Math.abs(shift) % 9)) % 10);
}

const CUIL_WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;

/** `11 − (Σ weight × digit mod 11)`, 11 → 0; null when it gives 10 (that prefix cannot carry the number). */
export function cuilCheckDigit(prefix: string, number8: string): number | null {
  const digits = `${prefix}${number8}`;
  let sum = 0;
  for (let index = 0; index < 10; index += 1) sum += Number(digits.charAt(index)) * (CUIL_WEIGHTS[index] ?? 0);
  const result = 11 - (sum % 11);
  if (result === 11) return 0;
  return result === 10 ? null : result;
}

export interface Cuil {
  prefix: string;
  /** The DNI number zero-padded to eight digits. */
  number: string;
  check_digit: number;
  /** `PP-NNNNNNNN-C`. */
  formatted: string;
  /** Whether the check digit is the right one (false only for deliberately broken documents). */
  valid: boolean;
}

/**
 * The CUIL of a person: 20 for men and 27 for women as assigned until 2021, one of the person prefixes
 * (drawn by `prefixChoice`) for X, as since Resolución 286/2021, and 23 when the usual prefix cannot
 * carry the number (check digit 10). `broken` gives the same number with a wrong check digit.
 */
export function cuilFor(dniNumber: string, sex: Sex, prefixChoice: number, broken: boolean): Cuil {
  const number = dniNumber.padStart(8, '0');
  const customary = sex === 'M' ? '20' : sex === 'F' ? '27' : (['20', '23', '24', '27'] as const)[prefixChoice % 4];
  let prefix: string = customary ?? '20';
  let check = cuilCheckDigit(prefix, number);
  if (check === null) {
    prefix = '23';
    check = cuilCheckDigit(prefix, number);
  }
  if (check === null) {
    // 23 with a sum giving 10 does not happen for 20/27 holders; for a random prefix fall back to 24.
    prefix = '24';
    check = cuilCheckDigit(prefix, number) ?? 0;
  }
  const digit = broken ? (check + 1 + (prefixChoice % 9)) % 10 : check;
  return { prefix, number, check_digit: digit, formatted: `${prefix}-${number}-${digit}`, valid: !broken };
}

/** What the DNI's PDF417 says. The 2012 layout has no expiry; the 2009 layout has one. */
export interface DniBarcodeContent {
  tramite: string;
  surname: string;
  given_names: string;
  sex: Sex;
  number: string;
  series: string;
  birth_date: string;
  issue_date: string;
  /** 2012 layout, 9th field. */
  cuil?: Cuil;
  /** 2009 layout. */
  expiry_date?: string;
  nationality_text?: string;
  office_code?: string;
}

/** `trámite@surname@given names@sex@number@ejemplar@birth@issue[@CUIL prefix+check]` (8 or 9 fields). */
export function encodeDni2012Payload(content: DniBarcodeContent): string {
  const fields = [
    content.tramite,
    content.surname,
    content.given_names,
    content.sex,
    content.number,
    content.series,
    toDayMonthYear(content.birth_date),
    toDayMonthYear(content.issue_date),
  ];
  if (content.cuil !== undefined) fields.push(`${content.cuil.prefix}${content.cuil.check_digit}`);
  return fields.join('@');
}

/**
 * The 17-field layout of the first cards: an empty field, the number space-padded, ejemplar, '1',
 * surname, given names, nationality, birth, sex, issue, trámite, office, expiry, then four fields no
 * source documents (filled here as on the published samples: a code, '0', a reader version, a unit).
 */
export function encodeDni2009Payload(content: DniBarcodeContent, undocumented: readonly string[]): string {
  if (content.expiry_date === undefined) throw new Error('the 2009 layout carries an expiry date');
  if (undocumented.length !== 4) throw new Error('the 2009 layout ends with four undocumented fields');
  return [
    '',
    content.number.padEnd(12, ' '),
    content.series,
    '1',
    content.surname,
    content.given_names,
    content.nationality_text ?? 'ARGENTINA',
    toDayMonthYear(content.birth_date),
    content.sex,
    toDayMonthYear(content.issue_date),
    content.tramite,
    `${content.office_code ?? '7000'} `,
    toDayMonthYear(content.expiry_date),
    ...undocumented,
  ].join('@');
}

/**
 * ICAO 9303-3 §6 transliteration of a name for the MRZ. `german` spells Ä Ö Ü as AE OE UE (as German
 * passports do); otherwise the diaeresis is dropped, as Spanish-speaking issuers do. Ñ is N. Apostrophes
 * vanish; spaces and hyphens become fillers.
 */
export function transliterate(name: string, options: { german?: boolean } = {}): string {
  let text = name.toUpperCase();
  if (options.german === true) text = text.replace(/Ä/g, 'AE').replace(/Ö/g, 'OE').replace(/Ü/g, 'UE');
  text = text.replace(/ß/g, 'SS').replace(/Æ/g, 'AE').replace(/Ø/g, 'OE').replace(/Å/g, 'AA');
  text = text.normalize('NFD').replace(/\p{M}/gu, '');
  text = text.replace(/['’.]/g, '').replace(/[\s-]+/g, '<');
  return text.replace(/[^A-Z<]/g, '');
}

/** `SURNAME<<GIVEN<NAMES` fitted to `width` with fillers, cut when longer (ICAO truncation, simplified). */
export function mrzNameField(surname: string, givenNames: string, width: number, options: { german?: boolean } = {}): string {
  const primary = transliterate(surname, options);
  const secondary = transliterate(givenNames, options);
  const full = secondary === '' ? primary : `${primary}<<${secondary}`;
  return full.length >= width ? full.slice(0, width) : full.padEnd(width, '<');
}

export interface MrzContent {
  document_code: string;
  issuing_state: string;
  document_number: string;
  nationality: string;
  birth_date: string;
  sex: Sex | '<';
  expiry_date: string;
  surname: string;
  given_names: string;
  /** TD3: the personal number (the DNI on Argentine passports). */
  personal_number?: string;
  german_transliteration?: boolean;
  /** Which check digit to get wrong on purpose (negative samples). */
  broken_check?: 'document_number' | 'birth_date' | 'expiry_date' | 'composite';
}

function fitted(text: string, width: number): string {
  if (text.length > width) throw new Error(`'${text}' does not fit ${width} MRZ characters`);
  return text.padEnd(width, '<');
}

function maybeBroken(digit: string, broken: boolean): string {
  return broken ? wrongDigit(digit, 3) : digit;
}

/** A TD1 zone (3 × 30): the DNI. Document numbers up to 9 characters (the DNI has 7 or 8 digits). */
export function encodeTd1(content: MrzContent): [string, string, string] {
  const number = fitted(content.document_number, 9);
  const numberCheck = maybeBroken(mrzCheckDigit(number), content.broken_check === 'document_number');
  const line1 = `${fitted(content.document_code, 2)}${fitted(content.issuing_state, 3)}${number}${numberCheck}${'<'.repeat(15)}`;
  const birth = toMrzDate(content.birth_date);
  const expiry = toMrzDate(content.expiry_date);
  const birthCheck = maybeBroken(mrzCheckDigit(birth), content.broken_check === 'birth_date');
  const expiryCheck = maybeBroken(mrzCheckDigit(expiry), content.broken_check === 'expiry_date');
  const optional2 = '<'.repeat(11);
  const line2WithoutComposite = `${birth}${birthCheck}${content.sex}${expiry}${expiryCheck}${fitted(content.nationality, 3)}${optional2}`;
  const compositeData = `${line1.slice(5, 30)}${line2WithoutComposite.slice(0, 7)}${line2WithoutComposite.slice(8, 15)}${line2WithoutComposite.slice(18, 29)}`;
  const composite = maybeBroken(mrzCheckDigit(compositeData), content.broken_check === 'composite');
  const line3 = mrzNameField(content.surname, content.given_names, 30, { german: content.german_transliteration ?? false });
  return [line1, `${line2WithoutComposite}${composite}`, line3];
}

/** A TD3 zone (2 × 44): passports. */
export function encodeTd3(content: MrzContent): [string, string] {
  const line1 = `${fitted(content.document_code, 2)}${fitted(content.issuing_state, 3)}${mrzNameField(
    content.surname,
    content.given_names,
    39,
    {
      german: content.german_transliteration ?? false,
    },
  )}`;
  const number = fitted(content.document_number, 9);
  const numberCheck = maybeBroken(mrzCheckDigit(number), content.broken_check === 'document_number');
  const birth = toMrzDate(content.birth_date);
  const expiry = toMrzDate(content.expiry_date);
  const birthCheck = maybeBroken(mrzCheckDigit(birth), content.broken_check === 'birth_date');
  const expiryCheck = maybeBroken(mrzCheckDigit(expiry), content.broken_check === 'expiry_date');
  const personal = fitted(content.personal_number ?? '', 14);
  const personalCheck = mrzCheckDigit(personal);
  const body = `${number}${numberCheck}${fitted(content.nationality, 3)}${birth}${birthCheck}${content.sex}${expiry}${expiryCheck}${personal}${personalCheck}`;
  const compositeData = `${body.slice(0, 10)}${body.slice(13, 20)}${body.slice(21, 43)}`;
  const composite = maybeBroken(mrzCheckDigit(compositeData), content.broken_check === 'composite');
  return [line1, `${body}${composite}`];
}

/**
 * The driver licence's PDF417 payload. No public layout of the Licencia Nacional de Conducir's barcode
 * exists (docs/documents.md "Driver's licence"), so the corpus uses its own, documented in the package
 * README: 12 '@'-separated fields starting with the marker `LNC` and a layout version, so that no DNI
 * parser can take it for a DNI (the DNI layouts have 8, 9 or 17 fields and never start with letters).
 *
 * `LNC@1@number@surname@given names@sex@birth DD/MM/YYYY@issue DD/MM/YYYY@expiry DD/MM/YYYY@classes@
 * jurisdiction@licence control number`
 */
export interface LicenceContent {
  number: string;
  surname: string;
  given_names: string;
  sex: Sex;
  birth_date: string;
  issue_date: string;
  expiry_date: string;
  /** Licence classes, e.g. ['A.2.1', 'B.1']. */
  classes: readonly string[];
  /** The issuing municipality or province, as printed. */
  jurisdiction: string;
  /** The licence's own control number (digits). */
  control_number: string;
}

export const LICENCE_PAYLOAD_MARKER = 'LNC';
export const LICENCE_PAYLOAD_VERSION = '1';
export const LICENCE_PAYLOAD_FIELD_COUNT = 12;

export function encodeLicencePayload(content: LicenceContent): string {
  return [
    LICENCE_PAYLOAD_MARKER,
    LICENCE_PAYLOAD_VERSION,
    content.number,
    content.surname,
    content.given_names,
    content.sex,
    toDayMonthYear(content.birth_date),
    toDayMonthYear(content.issue_date),
    toDayMonthYear(content.expiry_date),
    content.classes.join(','),
    content.jurisdiction,
    content.control_number,
  ].join('@');
}

function isoFromDayMonthYear(text: string): string | null {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
  return match === null ? null : `${match[3]}-${match[2]}-${match[1]}`;
}

/** Reads the corpus's licence layout back (the reader of this layout belongs to the verification package). */
export function decodeLicencePayload(payload: string): LicenceContent | null {
  const parts = payload.split('@');
  if (
    parts.length !== LICENCE_PAYLOAD_FIELD_COUNT ||
    parts[0] !== LICENCE_PAYLOAD_MARKER ||
    parts[1] !== LICENCE_PAYLOAD_VERSION
  ) {
    return null;
  }
  const [
    ,
    ,
    number = '',
    surname = '',
    givenNames = '',
    sex = '',
    birth = '',
    issue = '',
    expiry = '',
    classes = '',
    jurisdiction = '',
    control = '',
  ] = parts;
  const birthDate = isoFromDayMonthYear(birth);
  const issueDate = isoFromDayMonthYear(issue);
  const expiryDate = isoFromDayMonthYear(expiry);
  if (birthDate === null || issueDate === null || expiryDate === null) return null;
  if (sex !== 'M' && sex !== 'F' && sex !== 'X') return null;
  return {
    number,
    surname,
    given_names: givenNames,
    sex,
    birth_date: birthDate,
    issue_date: issueDate,
    expiry_date: expiryDate,
    classes: classes === '' ? [] : classes.split(','),
    jurisdiction,
    control_number: control,
  };
}
