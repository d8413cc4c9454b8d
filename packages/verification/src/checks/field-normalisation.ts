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

// A name with many such letters would multiply its forms; past this many, extra forms are dropped.
const MAX_NAME_FORMS = 64;

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

/**
 * Whether two names are the same name as two sources write it. A side marked truncated (an MRZ whose
 * name field is full) matches when it is a prefix of the other: ICAO cuts long names at the field's end.
 */
export function namesMatch(a: string, b: string, aTruncated = false, bTruncated = false): boolean {
  const aKeys = nameKeys(a);
  const bKeys = nameKeys(b);
  for (const aKey of aKeys) {
    for (const bKey of bKeys) {
      if (aKey === bKey) return true;
      if (aTruncated && bKey.startsWith(aKey)) return true;
      if (bTruncated && aKey.startsWith(bKey)) return true;
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
