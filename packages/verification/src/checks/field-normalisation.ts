import { LETTERS_PER_OCR_EDIT, MAX_NAME_FORMS } from '../calibration/checks';
import type { Sex } from '../model';
import { repairMojibake } from '../parsers/text-repair';

/**
 * ICAO 9303-3 §6 transliterations with more than one permitted form. An MRZ may write 'MUÑOZ' as MUNOZ or
 * MUNXXOZ and 'GÜEMES' as GUEMES, GUEEMES or GUXXEMES; a printed or barcode name is expanded into every
 * form so that any of them matches. Every other accented letter has a single form: its base letter.
 */
const TRANSLITERATIONS: Readonly<Record<string, readonly string[]>> = {
  Ñ: ['N', 'NXX'],
  Ü: ['U', 'UE', 'UXX'],
  Ä: ['A', 'AE', 'AXX'],
  Ö: ['O', 'OE', 'OXX'],
  Å: ['A', 'AA', 'AXX'],
  Æ: ['AE'],
  Ø: ['O', 'OE'],
  Œ: ['OE'],
  Þ: ['TH'],
  Ð: ['D'],
  Đ: ['D'],
  Ħ: ['H'],
  Ł: ['L'],
  Ĳ: ['IJ'],
};

function stripMarks(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '');
}

/**
 * Comparison keys of a name: upper case, mojibake repaired, ICAO transliteration forms expanded, then
 * everything but A-Z dropped (spaces, '<', apostrophes and hyphens are written differently by each
 * source: 'VILLA REAL' on the card is VILLAREAL in its MRZ).
 */
export function nameKeys(name: string): Set<string> {
  // Upper-cased first so the table only needs capitals ('ß' becomes 'SS' on its own).
  const upper = repairMojibake(name).normalize('NFC').toUpperCase();
  let forms = [''];
  for (const char of upper) {
    const options = TRANSLITERATIONS[char] ?? [stripMarks(char)];
    forms = forms.flatMap((form) => options.map((option) => form + option)).slice(0, MAX_NAME_FORMS);
  }
  return new Set(forms.map((form) => form.replace(/[^A-Z]/g, '')));
}

/** How a source wrote its names, for `namesMatch`. */
export interface NameSource {
  /** An MRZ whose name field is full: ICAO cuts long names at the field's end. */
  truncated?: boolean;
  /** Read by OCR from the card's print, where a letter or two misread is the reader's doing. */
  ocr?: boolean;
}

/**
 * Levenshtein distance with one more single edit, two letters read as one or one as two (OCR merges
 * narrow neighbours: `CI` read `O`, `LI` read `U`, `KI` read `M`); it stops early once it is over `limit`
 * (the answer is then `limit + 1`).
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  // Every edit changes the length by one at most.
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost);
      if (i >= 2) value = Math.min(value, ((rows[i - 2] as number[])[j - 1] ?? 0) + 1);
      if (j >= 2) value = Math.min(value, (above[j - 2] ?? 0) + 1);
      row.push(value);
    }
    if (Math.min(...row) > limit && (i < 2 || Math.min(...(rows[i - 1] as number[])) > limit)) return limit + 1;
    rows.push(row);
  }
  return Math.min((rows[a.length] as number[])[b.length] ?? 0, limit + 1);
}

/**
 * Whether two names are the same name as two sources write it. A side marked truncated matches when it
 * is a prefix of the other. Where either side was read by OCR from the print, names that differ by at
 * most one edit per `LETTERS_PER_OCR_EDIT` letters (at least one) match: OCR's misreads are not the
 * card's, and a forger who changes a name changes more than a letter or two of it (docs/documents.md
 * "Cross-checks and reason codes").
 */
export function namesMatch(a: string, b: string, aSource: NameSource = {}, bSource: NameSource = {}): boolean {
  const aKeys = nameKeys(a);
  const bKeys = nameKeys(b);
  const ocr = aSource.ocr === true || bSource.ocr === true;
  for (const aKey of aKeys) {
    for (const bKey of bKeys) {
      if (aKey === bKey) return true;
      if (aSource.truncated === true && bKey.startsWith(aKey)) return true;
      if (bSource.truncated === true && aKey.startsWith(bKey)) return true;
      if (ocr) {
        const allowance = Math.max(1, Math.floor(Math.max(aKey.length, bKey.length) / LETTERS_PER_OCR_EDIT));
        if (editDistance(aKey, bKey, allowance) <= allowance) return true;
      }
    }
  }
  return false;
}

/**
 * A document number without its print formatting: '12.345.678', '12 345 678' and '012345678' are all
 * 12345678. Letters are kept (passport numbers have them); leading zeros of an all-digit number are not.
 * Null when nothing is left.
 */
export function normaliseDocumentNumber(text: string): string | null {
  const compact = text.toUpperCase().replace(/[\s.\-<]/g, '');
  if (compact === '' || !/^[A-Z0-9]+$/.test(compact)) return null;
  return /^\d+$/.test(compact) ? compact.replace(/^0+(?=\d)/, '') : compact;
}

/** Digits only ('20-12345678-3' → '20123456783'); null when there are none. */
export function digitsOnly(text: string): string | null {
  const digits = text.replace(/\D/g, '');
  return digits === '' ? null : digits;
}

const SEX_WORDS: Readonly<Record<string, Sex>> = {
  M: 'M',
  F: 'F',
  X: 'X',
  '<': 'X',
  MASCULINO: 'M',
  FEMENINO: 'F',
  MALE: 'M',
  FEMALE: 'F',
};

/** 'M', 'F', 'X' from a letter or a word as printed (the DNI prints "SEXO / SEX: M"); null if neither. */
export function normaliseSex(text: string): Sex | null {
  return SEX_WORDS[text.trim().toUpperCase()] ?? null;
}

const COUNTRY_NAMES: Readonly<Record<string, string>> = { ARGENTINA: 'ARG', ARGENTINO: 'ARG', ARGENTINE: 'ARG' };

/**
 * An ICAO country code ('ARG', or 'D' for Germany) from a code or a name we know; null for any other name,
 * which then cannot be compared rather than count as a mismatch.
 */
export function normaliseCountry(text: string): string | null {
  const upper = stripMarks(text.trim().toUpperCase()).replace(/<+$/, '');
  if (/^[A-Z]{1,3}$/.test(upper)) return upper;
  return COUNTRY_NAMES[upper] ?? null;
}
