import { emptyDocumentFields, type DocumentFields, type DocumentType, type IsoDate, type Sex } from '../model';
import { assertIsoDate, parseMrzDate, toIsoDate } from './dates';
import { isStateCode } from './icao-states';

/**
 * ICAO Doc 9303 machine readable zones: TD1 (3×30, ID cards including the 2009 DNI), TD2 (2×36),
 * TD3 (2×44, passports) and the visas MRV-A (2×44) and MRV-B (2×36). Fields are returned as printed
 * (dates YYMMDD, '<' fillers removed); `mrzToDocumentFields` turns them into the domain model.
 *
 * No character is ever substituted: an OCR confusion (O/0, I/1, S/5, B/8) stays in the field and fails
 * its check digit, so a misread MRZ is reported as invalid rather than silently "corrected". What is
 * tolerated is only what changes no character: whitespace inside lines, lower case, surrounding lines
 * of other text (`extractMrzLines`), and what ICAO itself allows: '<' as the check digit of an empty
 * optional field, and '<' for unknown parts of a date of birth.
 */
export type MrzFormat = 'TD1' | 'TD2' | 'TD3' | 'MRVA' | 'MRVB';

export type MrzCheckedField = 'document_number' | 'birth_date' | 'expiry_date' | 'personal_number' | 'composite';

/** The fields as printed in the zone, fillers removed: dates stay `YYMMDD`, sex stays M, F, X or '<'. */
export interface MrzFields {
  document_code: string;
  issuing_state: string;
  document_number: string;
  nationality: string;
  birth_date: string;
  sex: string;
  expiry_date: string;
  surname: string;
  given_names: string;
  /** TD3 only. */
  personal_number?: string;
  /** TD1 (line 1, after any document number overflow) and TD2. */
  optional1?: string;
  /** TD1 only (line 2). */
  optional2?: string;
  /** Visas only. */
  optional?: string;
}

export type MrzProblem =
  | { field: MrzCheckedField; problem: 'check_digit_mismatch' }
  | { field: 'birth_date' | 'expiry_date'; problem: 'not_a_date' }
  | { field: 'sex'; problem: 'invalid_sex' };

/**
 * How the check digit of a TD1/TD2 document number longer than 9 characters was computed. ICAO 9303-5
 * computes it over the number without the filler that marks the overflow; some issuers (the Belgian PRADO
 * specimens) include that filler. Both are accepted, and the one that matched is reported.
 */
export type LongDocumentNumberConvention = 'icao' | 'filler_included';

export interface MrzData {
  ok: true;
  format: MrzFormat;
  /** The lines as parsed (whitespace removed, upper case). */
  lines: string[];
  fields: MrzFields;
  /** One entry per check digit the format has. */
  check_digits: Partial<Record<MrzCheckedField, boolean>>;
  problems: MrzProblem[];
  /** Every check digit holds, dates are dates (or ICAO "unknown") and sex is M, F, X or '<'. */
  valid: boolean;
  /** The name field is full, so ICAO truncation may have shortened the names. */
  names_truncated: boolean;
  long_document_number: LongDocumentNumberConvention | null;
}

export type MrzFailure =
  /** No line, or a count/length that no format has. */
  | 'line_layout'
  /** A character outside A-Z, 0-9 and '<'. */
  | 'charset';

export interface MrzParseFailure {
  ok: false;
  failure: MrzFailure;
  detail: string;
}

export type MrzParseResult = MrzData | MrzParseFailure;

const MRZ_LINE = /^[A-Z0-9<]+$/;

function charValue(char: string): number | null {
  if (char === '<') return 0;
  const code = char.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  return null;
}

/** ICAO 9303-3 check digit: values 0-9, A=10…Z=35, '<'=0, weights 7,3,1 repeating, sum mod 10. */
export function computeMrzCheckDigit(text: string): number | null {
  const weights = [7, 3, 1] as const;
  let sum = 0;
  for (let index = 0; index < text.length; index += 1) {
    const value = charValue(text.charAt(index));
    if (value === null) return null;
    sum += value * (weights[index % 3] ?? 0);
  }
  return sum % 10;
}

function checkDigitHolds(data: string, digit: string, fillerAllowedWhenEmpty = false): boolean {
  // ICAO lets an unused optional field carry '<' instead of its (zero) check digit.
  if (digit === '<') return fillerAllowedWhenEmpty && /^<*$/.test(data);
  if (!/^\d$/.test(digit)) return false;
  return computeMrzCheckDigit(data) === Number(digit);
}

/** '<' fillers become spaces, then runs collapse: 'CACADOR<DE<ARAUJO' → 'CACADOR DE ARAUJO'. */
function printed(text: string): string {
  return text.replace(/</g, ' ').replace(/\s+/g, ' ').trim();
}

/** Primary identifier (surname) before the first '<<', secondary identifiers (given names) after it. */
function splitNames(field: string): { surname: string; given_names: string } {
  const separator = field.indexOf('<<');
  if (separator === -1) return { surname: printed(field), given_names: '' };
  return { surname: printed(field.slice(0, separator)), given_names: printed(field.slice(separator + 2)) };
}

interface DocumentNumberReading {
  document_number: string;
  holds: boolean;
  optional: string;
  convention: LongDocumentNumberConvention | null;
}

/**
 * The document number of TD1 and TD2. When its check digit position holds '<', the number is longer than
 * nine characters: it continues in the optional data, up to the next '<', whose last character is the
 * check digit (ICAO 9303-5 §4.2.2 note j, 9303-6 likewise).
 */
function readDocumentNumber(principal: string, checkChar: string, optionalRegion: string): DocumentNumberReading {
  if (checkChar !== '<') {
    return {
      document_number: printed(principal),
      holds: checkDigitHolds(principal, checkChar),
      optional: printed(optionalRegion),
      convention: null,
    };
  }
  const end = optionalRegion.indexOf('<');
  const overflow = end === -1 ? optionalRegion : optionalRegion.slice(0, end);
  const rest = end === -1 ? '' : optionalRegion.slice(end + 1);
  if (overflow === '') {
    // A filler where the check digit belongs and nothing to continue the number: the check digit is missing.
    return { document_number: printed(principal), holds: false, optional: printed(rest), convention: null };
  }
  const continuation = overflow.slice(0, -1);
  const check = overflow.slice(-1);
  const convention: LongDocumentNumberConvention | null = checkDigitHolds(`${principal}${continuation}`, check)
    ? 'icao'
    : checkDigitHolds(`${principal}<${continuation}`, check)
      ? 'filler_included'
      : null;
  return {
    document_number: printed(`${principal}${continuation}`),
    holds: convention !== null,
    optional: printed(rest),
    convention,
  };
}

function dateProblem(yymmdd: string, field: 'birth_date' | 'expiry_date'): MrzProblem | null {
  // ICAO writes an unknown part of a date of birth (and a missing expiry) as fillers.
  if (field === 'birth_date' && /^\d{2}(\d{2}|<<)(\d{2}|<<)$/.test(yymmdd) && yymmdd.includes('<')) return null;
  if (field === 'expiry_date' && yymmdd === '<<<<<<') return null;
  if (/^\d{6}$/.test(yymmdd)) {
    const month = Number(yymmdd.slice(2, 4));
    const day = Number(yymmdd.slice(4, 6));
    // Any year: 29 February only needs one leap year among the two centuries.
    if (toIsoDate(2000, month, day) !== null) return null;
  }
  return { field, problem: 'not_a_date' };
}

interface Checks {
  check_digits: Partial<Record<MrzCheckedField, boolean>>;
  problems: MrzProblem[];
}

/** Whether a character of the zone is a sex ICAO 9303 allows: M, F, X, or '<' (unspecified). */
export function isMrzSex(character: string): boolean {
  return character.length === 1 && 'MFX<'.includes(character);
}

function collect(checks: Record<string, boolean>, fields: MrzFields): Checks {
  const problems: MrzProblem[] = [];
  const checkDigits: Partial<Record<MrzCheckedField, boolean>> = {};
  for (const [field, holds] of Object.entries(checks) as [MrzCheckedField, boolean][]) {
    checkDigits[field] = holds;
    if (!holds) problems.push({ field, problem: 'check_digit_mismatch' });
  }
  for (const field of ['birth_date', 'expiry_date'] as const) {
    const problem = dateProblem(fields[field], field);
    if (problem !== null) problems.push(problem);
  }
  if (!isMrzSex(fields.sex)) problems.push({ field: 'sex', problem: 'invalid_sex' });
  return { check_digits: checkDigits, problems };
}

function parseTd1(lines: readonly string[]): Omit<MrzData, 'ok' | 'format' | 'lines'> {
  const [first = '', second = '', third = ''] = lines;
  const number = readDocumentNumber(first.slice(5, 14), first.charAt(14), first.slice(15, 30));
  const fields: MrzFields = {
    document_code: printed(first.slice(0, 2)),
    issuing_state: printed(first.slice(2, 5)),
    document_number: number.document_number,
    birth_date: second.slice(0, 6),
    sex: second.charAt(7),
    expiry_date: second.slice(8, 14),
    nationality: printed(second.slice(15, 18)),
    optional1: number.optional,
    optional2: printed(second.slice(18, 29)),
    ...splitNames(third),
  };
  const composite = `${first.slice(5, 30)}${second.slice(0, 7)}${second.slice(8, 15)}${second.slice(18, 29)}`;
  const checks = collect(
    {
      document_number: number.holds,
      birth_date: checkDigitHolds(second.slice(0, 6), second.charAt(6)),
      expiry_date: checkDigitHolds(second.slice(8, 14), second.charAt(14)),
      composite: checkDigitHolds(composite, second.charAt(29)),
    },
    fields,
  );
  return {
    fields,
    ...checks,
    valid: checks.problems.length === 0,
    names_truncated: namesMayBeTruncated(third),
    long_document_number: number.convention,
  };
}

/**
 * A name field without a run of fillers at its end may hold cut names: cut after a letter, or right after
 * the `<` between two words (corpus seed 99: `RODRIGUEZ<SILVA<<MARIA<DE<LOS<` for MARÍA DE LOS ÁNGELES,
 * whose card was rejected as a data mismatch while the field ended in a filler). A name that fits with
 * exactly one filler to spare looks the same and is only allowed a prefix match it does not need.
 */
function namesMayBeTruncated(nameField: string): boolean {
  return !nameField.endsWith('<<');
}

/** TD2, TD3 and the visas share line 1 and the first 28 characters of line 2. */
function parseTwoLine(format: Exclude<MrzFormat, 'TD1'>, lines: readonly string[]): Omit<MrzData, 'ok' | 'format' | 'lines'> {
  const [first = '', second = ''] = lines;
  const width = first.length;
  const nameField = first.slice(5, width);
  const isTd2 = format === 'TD2';
  const number = isTd2
    ? readDocumentNumber(second.slice(0, 9), second.charAt(9), second.slice(28, 35))
    : {
        document_number: printed(second.slice(0, 9)),
        holds: checkDigitHolds(second.slice(0, 9), second.charAt(9)),
        optional: '',
        convention: null,
      };
  const fields: MrzFields = {
    document_code: printed(first.slice(0, 2)),
    issuing_state: printed(first.slice(2, 5)),
    ...splitNames(nameField),
    document_number: number.document_number,
    nationality: printed(second.slice(10, 13)),
    birth_date: second.slice(13, 19),
    sex: second.charAt(20),
    expiry_date: second.slice(21, 27),
  };
  const checks: Record<string, boolean> = {
    document_number: number.holds,
    birth_date: checkDigitHolds(second.slice(13, 19), second.charAt(19)),
    expiry_date: checkDigitHolds(second.slice(21, 27), second.charAt(27)),
  };
  if (format === 'TD3') {
    fields.personal_number = printed(second.slice(28, 42));
    checks.personal_number = checkDigitHolds(second.slice(28, 42), second.charAt(42), true);
    checks.composite = checkDigitHolds(`${second.slice(0, 10)}${second.slice(13, 20)}${second.slice(21, 43)}`, second.charAt(43));
  } else if (isTd2) {
    fields.optional1 = number.optional;
    checks.composite = checkDigitHolds(`${second.slice(0, 10)}${second.slice(13, 20)}${second.slice(21, 35)}`, second.charAt(35));
  } else {
    // Visas (ICAO 9303-7) have no composite check digit: the rest of line 2 is optional data.
    fields.optional = printed(second.slice(28, width));
  }
  const collected = collect(checks, fields);
  return {
    fields,
    ...collected,
    valid: collected.problems.length === 0,
    names_truncated: namesMayBeTruncated(nameField),
    long_document_number: number.convention,
  };
}

/** Splits text into lines, drops whitespace inside them (OCR inserts spaces) and upper-cases them. */
function normaliseLines(input: string | readonly string[]): string[] {
  const raw = typeof input === 'string' ? input.split(/\r?\n/) : input;
  return raw.map((line) => line.replace(/\s+/g, '').toUpperCase()).filter((line) => line !== '');
}

function formatOf(lines: readonly string[]): MrzFormat | null {
  const lengths = lines.map((line) => line.length);
  const isVisa = lines[0]?.startsWith('V') ?? false;
  if (lines.length === 3 && lengths.every((length) => length === 30)) return 'TD1';
  if (lines.length === 2 && lengths.every((length) => length === 36)) return isVisa ? 'MRVB' : 'TD2';
  if (lines.length === 2 && lengths.every((length) => length === 44)) return isVisa ? 'MRVA' : 'TD3';
  return null;
}

/** Parses an MRZ given as its lines (or one string with line breaks). Never throws. */
export function parseMrz(input: string | readonly string[]): MrzParseResult {
  const lines = normaliseLines(input);
  const badLine = lines.find((line) => !MRZ_LINE.test(line));
  if (badLine !== undefined) {
    return { ok: false, failure: 'charset', detail: 'an MRZ line holds a character other than A-Z, 0-9 and <' };
  }
  const format = formatOf(lines);
  if (format === null) {
    return {
      ok: false,
      failure: 'line_layout',
      detail: `lines of length [${lines.map((line) => line.length).join(', ')}]; expected 3×30, 2×36 or 2×44`,
    };
  }
  const parsed = format === 'TD1' ? parseTd1(lines) : parseTwoLine(format, lines);
  return { ok: true, format, lines, ...parsed };
}

/**
 * Finds the MRZ lines in OCR output that also holds other text: the first run of 3 lines of 30, or 2 of
 * 36 or 44, made only of MRZ characters once whitespace is dropped. Characters are never changed, so
 * OCR confusions survive to fail their check digits in `parseMrz`. Null when there is no such run.
 */
export function extractMrzLines(ocrText: string): string[] | null {
  const lines = normaliseLines(ocrText);
  for (let start = 0; start < lines.length; start += 1) {
    for (const [count, length] of [
      [3, 30],
      [2, 36],
      [2, 44],
    ] as const) {
      const run = lines.slice(start, start + count);
      if (run.length === count && run.every((line) => line.length === length && MRZ_LINE.test(line))) return run;
    }
  }
  return null;
}

/**
 * What kind of document an MRZ belongs to, among those we verify; `unsupported` for another one (a
 * foreign ID card, a visa). Null when the read cannot say: a read whose issuing state is no ICAO code is
 * a misread, most often a passport's or a DNI's lines that lost their first characters and fit another
 * format's length (`P<ARGGOMEZ…` read as a TD2 of state `GGO`); calling it another document would tell
 * the person to fetch a different one when the photo is what should be taken again. Even when every
 * check digit holds: each is one chance in ten, and a cut TD3 read can carry all of them (a screen
 * recapture of a passport read as a TD2 of state `GSU`, bench/documents seed 99 document 178).
 */
export function documentTypeOfMrz(mrz: MrzData): DocumentType | 'unsupported' | null {
  if (mrz.format === 'TD3' && mrz.fields.document_code.startsWith('P')) return 'passport';
  if (mrz.format === 'TD1' && mrz.fields.document_code.startsWith('I') && mrz.fields.issuing_state === 'ARG') {
    return 'dni';
  }
  // Every format has the issuing state at the first line's positions 3–5, filler included (`D<<`).
  if (!isStateCode((mrz.lines[0] ?? '').slice(2, 5))) return null;
  return 'unsupported';
}

// The first character of the document code each format allows (ICAO 9303 parts 4–7): a machine readable
// passport is P, an official travel document (TD1, TD2) A, C or I, a visa V.
const DOCUMENT_CODE_LETTERS: Record<MrzFormat, string> = { TD1: 'ACI', TD2: 'ACI', TD3: 'P', MRVA: 'V', MRVB: 'V' };

/** Whether the document code's first character is one the zone's format allows. */
export function hasFormatDocumentCode(mrz: MrzData): boolean {
  const letter = mrz.fields.document_code.charAt(0);
  return letter !== '' && DOCUMENT_CODE_LETTERS[mrz.format].includes(letter);
}

function sexOf(printedSex: string): Sex | null {
  if (printedSex === 'M' || printedSex === 'F' || printedSex === 'X') return printedSex;
  return printedSex === '<' ? 'X' : null;
}

function blankToNull(value: string): string | null {
  return value === '' ? null : value;
}

/**
 * The MRZ in the domain model. Two-digit years: a birth year that would lie after `today` is 19YY,
 * expiry years are 20YY. A date that is not a date (or is partly unknown) becomes null.
 */
export function mrzToDocumentFields(mrz: MrzData, options: { today: IsoDate }): DocumentFields {
  assertIsoDate(options.today, 'today');
  const type = documentTypeOfMrz(mrz);
  return {
    ...emptyDocumentFields(),
    doc_type: type === 'unsupported' ? null : type,
    number: blankToNull(mrz.fields.document_number),
    surname: mrz.fields.surname,
    given_names: mrz.fields.given_names,
    sex: sexOf(mrz.fields.sex),
    birth_date: parseMrzDate(mrz.fields.birth_date, 'past', options.today),
    expiry_date: parseMrzDate(mrz.fields.expiry_date, 'twenty_first', options.today),
    nationality: blankToNull(mrz.fields.nationality),
    issuing_state: blankToNull(mrz.fields.issuing_state),
  };
}
