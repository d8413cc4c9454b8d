import { emptyDocumentFields, type DocumentFields, type IsoDate, type Sex } from '../model';
import { dniNumberForCuil } from './cuil.parser';
import { assertIsoDate, looksLikeDayMonthShortYear, parseDayMonthShortYear, parseDayMonthYear } from './dates';
import { collapseSpaces, repairMojibake, trimControlAndSpace } from './text-repair';

/**
 * The PDF417 payload of the Argentine DNI card. Layouts and sources: docs/documents.md "Barcode layouts".
 *
 * - `new_2012`: `trámite@surname@given names@sex@number@ejemplar@birth@issue[@CUIL prefix+check]`
 *   (8 or 9 fields, dates DD/MM/YYYY). Carries no expiry date.
 * - `old_2009`: 17 fields starting with an empty one: `@number@ejemplar@1@surname@given names@nationality
 *   @birth@sex@issue@trámite@office@expiry@…` (the last four undocumented, kept verbatim).
 * - `reported_2026`: 8 fields, no sex, DD/MM/YY dates and a long signed token last. No payload of it is
 *   public, so its fields are assigned by their shape rather than their position.
 */
export type DniBarcodeLayout = 'new_2012' | 'old_2009' | 'reported_2026';

export type DniBarcodeFailure =
  /** Nothing but whitespace. */
  | 'empty'
  /** Neither '@' nor the keyboard-wedge '"' separates fields. */
  | 'no_separator'
  /** A field count no layout has (8 or 9, 17). */
  | 'field_count'
  /** The field count fits a layout but the fields do not have its shape. */
  | 'unknown_layout'
  /** The layout is known but one field is not what it must be (a date like 31/02, letters in a number). */
  | 'invalid_field';

export type DniBarcodeField =
  | 'tramite'
  | 'surname'
  | 'given_names'
  | 'sex'
  | 'number'
  | 'series'
  | 'birth_date'
  | 'issue_date'
  | 'expiry_date'
  | 'nationality'
  | 'cuil';

export interface DniBarcodeData {
  ok: true;
  layout: DniBarcodeLayout;
  /** '"' when a keyboard-wedge scanner with a mismatched keyboard layout typed '@' as '"'. */
  separator: '@' | '"';
  fields: DocumentFields;
  /** False for the 2026 layout, which carries no sex: `fields.sex` is null because it is unknown. */
  sex_known: boolean;
  /** Whether Latin-1/Windows-1252 mojibake ('Ã‘' for 'Ñ') was repaired. */
  encoding_repaired: boolean;
  /** Fields kept verbatim that the domain model has no place for. */
  extra: {
    /** old_2009: the issuing office code (printed "Of. ident" on the card). */
    office_code?: string;
    /** old_2009: the nationality as written when it is not one we map to an ICAO code. */
    nationality_text?: string;
    /** old_2009: the four trailing fields, whose meaning no source documents. */
    undocumented?: string[];
    /** reported_2026: the trailing signed token; its signature is not verified here. */
    token?: string;
  };
  /** What the parser had to assume (only the 2026 layout has any). */
  assumptions: string[];
}

export interface DniBarcodeParseFailure {
  ok: false;
  failure: DniBarcodeFailure;
  /** The offending field, for `invalid_field`. */
  field?: DniBarcodeField;
  field_count: number;
  /** Says what is wrong without repeating the holder's data, so it can be logged. */
  detail: string;
}

export type DniBarcodeParseResult = DniBarcodeData | DniBarcodeParseFailure;

export interface DniBarcodeParseOptions {
  /** Resolves the century of the 2026 layout's two-digit birth years (see `CenturyRule`). */
  today: IsoDate;
}

const SEX = /^[MFX]$/;
const TRAMITE = /^\d{11}$/;
// 7-8 digits in circulation; 6 allows the oldest numbers (below one million) still held by the elderly.
const DNI_NUMBER = /^\d{6,8}$/;
const SERIES = /^[A-Z]$/;
const CUIL_SUFFIX = /^\d{3}$/;
// Letters (with accents and marks), spaces, apostrophes, hyphens, dots; U+FFFD stands for a letter a
// decoder could not map, which is still a name rather than a shifted field.
const NAME = /^(?=.*\p{L})[\p{L}\p{M}\uFFFD '’.-]+$/u;
const SIGNED_TOKEN_MIN_LENGTH = 16;

/** Nationality as written in the 17-field layout, mapped to its ICAO code when we know it. */
const NATIONALITY_CODES: Readonly<Record<string, string>> = { ARGENTINA: 'ARG', ARGENTINO: 'ARG' };

class InvalidField extends Error {
  constructor(
    readonly field: DniBarcodeField,
    readonly reason: string,
  ) {
    super(`${field} ${reason}`);
  }
}

function required(value: string | undefined, pattern: RegExp, field: DniBarcodeField, reason: string): string {
  const cleaned = collapseSpaces(value ?? '');
  if (!pattern.test(cleaned)) throw new InvalidField(field, reason);
  return cleaned;
}

function name(value: string | undefined, field: DniBarcodeField): string {
  return required(value, NAME, field, 'is not a name').toUpperCase();
}

function fullYearDate(value: string | undefined, field: DniBarcodeField): IsoDate {
  const date = parseDayMonthYear(value ?? '');
  if (date === null) throw new InvalidField(field, 'is not a DD/MM/YYYY calendar date');
  return date;
}

function cuilFromSuffix(suffix: string | undefined, number: string): string | null {
  const cleaned = collapseSpaces(suffix ?? '');
  if (cleaned === '') return null;
  if (!CUIL_SUFFIX.test(cleaned)) throw new InvalidField('cuil', 'is not a 3-digit CUIL prefix and check digit');
  const padded = dniNumberForCuil(number);
  if (padded === null) throw new InvalidField('number', 'cannot be part of a CUIL');
  return `${cleaned.slice(0, 2)}-${padded}-${cleaned.slice(2)}`;
}

function parseNew2012(parts: readonly string[]): Omit<DniBarcodeData, 'ok' | 'separator' | 'encoding_repaired'> {
  const number = required(parts[4], DNI_NUMBER, 'number', 'is not 6-8 digits');
  return {
    layout: 'new_2012',
    fields: {
      ...emptyDocumentFields(),
      doc_type: 'dni',
      tramite: required(parts[0], TRAMITE, 'tramite', 'is not 11 digits'),
      surname: name(parts[1], 'surname'),
      given_names: name(parts[2], 'given_names'),
      sex: required(parts[3], SEX, 'sex', 'is not M, F or X') as Sex,
      number,
      series: required(parts[5], SERIES, 'series', 'is not one letter'),
      birth_date: fullYearDate(parts[6], 'birth_date'),
      issue_date: fullYearDate(parts[7], 'issue_date'),
      cuil: cuilFromSuffix(parts[8], number),
      issuing_state: 'ARG',
    },
    sex_known: true,
    extra: {},
    assumptions: [],
  };
}

function parseOld2009(parts: readonly string[]): Omit<DniBarcodeData, 'ok' | 'separator' | 'encoding_repaired'> {
  const nationalityText = required(parts[6], NAME, 'nationality', 'is not a word').toUpperCase();
  const nationality = NATIONALITY_CODES[nationalityText] ?? null;
  return {
    layout: 'old_2009',
    fields: {
      ...emptyDocumentFields(),
      doc_type: 'dni',
      number: required(parts[1], DNI_NUMBER, 'number', 'is not 6-8 digits'),
      series: required(parts[2], SERIES, 'series', 'is not one letter'),
      surname: name(parts[4], 'surname'),
      given_names: name(parts[5], 'given_names'),
      nationality,
      birth_date: fullYearDate(parts[7], 'birth_date'),
      sex: required(parts[8], SEX, 'sex', 'is not M, F or X') as Sex,
      issue_date: fullYearDate(parts[9], 'issue_date'),
      tramite: required(parts[10], TRAMITE, 'tramite', 'is not 11 digits'),
      expiry_date: fullYearDate(parts[12], 'expiry_date'),
      issuing_state: 'ARG',
    },
    sex_known: true,
    extra: {
      office_code: collapseSpaces(parts[11] ?? ''),
      ...(nationality === null ? { nationality_text: nationalityText } : {}),
      undocumented: parts.slice(13).map(collapseSpaces),
    },
    assumptions: [],
  };
}

type ShapeKind = 'tramite' | 'number' | 'series' | 'date' | 'name';

function shapeOf(value: string): ShapeKind | null {
  if (TRAMITE.test(value)) return 'tramite';
  if (DNI_NUMBER.test(value)) return 'number';
  if (SERIES.test(value)) return 'series';
  if (looksLikeDayMonthShortYear(value)) return 'date';
  if (NAME.test(value)) return 'name';
  return null;
}

function parseReported2026(
  parts: readonly string[],
  today: IsoDate,
): Omit<DniBarcodeData, 'ok' | 'separator' | 'encoding_repaired'> | null {
  const token = collapseSpaces(parts[parts.length - 1] ?? '');
  if (token.length < SIGNED_TOKEN_MIN_LENGTH || /\s/.test(token)) return null;
  const byShape: Record<ShapeKind, string[]> = { tramite: [], number: [], series: [], date: [], name: [] };
  for (const part of parts.slice(0, -1)) {
    const value = collapseSpaces(part);
    const kind = shapeOf(value);
    if (kind === null) return null;
    byShape[kind].push(value);
  }
  const shapesFit =
    byShape.tramite.length === 1 &&
    byShape.number.length === 1 &&
    byShape.series.length === 1 &&
    byShape.date.length === 2 &&
    byShape.name.length === 2;
  if (!shapesFit) return null;
  const [birthText, issueText] = byShape.date;
  const birthDate = parseDayMonthShortYear(birthText ?? '', 'past', today);
  if (birthDate === null) throw new InvalidField('birth_date', 'is not a DD/MM/YY calendar date');
  const issueDate = parseDayMonthShortYear(issueText ?? '', 'twenty_first', today);
  if (issueDate === null) throw new InvalidField('issue_date', 'is not a DD/MM/YY calendar date');
  return {
    layout: 'reported_2026',
    fields: {
      ...emptyDocumentFields(),
      doc_type: 'dni',
      tramite: byShape.tramite[0] ?? null,
      number: byShape.number[0] ?? null,
      series: byShape.series[0] ?? null,
      surname: byShape.name[0]?.toUpperCase() ?? null,
      given_names: byShape.name[1]?.toUpperCase() ?? null,
      birth_date: birthDate,
      issue_date: issueDate,
      issuing_state: 'ARG',
    },
    sex_known: false,
    extra: { token },
    assumptions: [
      'no public payload of this layout exists: fields were assigned by shape, names and dates in their order of appearance (surname before given names, birth before issue)',
      'two-digit birth years take the latest century that does not put the birth after today',
      'the trailing token is kept verbatim; its signature is not verified',
    ],
  };
}

/**
 * Parses a DNI PDF417 payload as decoded (or as typed by a keyboard-wedge scanner). Never throws on a
 * malformed payload: every problem is a typed failure.
 */
export function parseDniBarcode(payload: string, options: DniBarcodeParseOptions): DniBarcodeParseResult {
  assertIsoDate(options.today, 'today');
  const repaired = repairMojibake(payload);
  const text = trimControlAndSpace(repaired);
  if (text === '') return { ok: false, failure: 'empty', field_count: 0, detail: 'the payload is empty' };

  const separator = text.includes('@') ? '@' : text.includes('"') ? '"' : null;
  if (separator === null) {
    return { ok: false, failure: 'no_separator', field_count: 1, detail: "no '@' (or keyboard-wedge '\"') in the payload" };
  }
  const parts = text.split(separator);
  const fieldCount = parts.length;

  try {
    let parsed: Omit<DniBarcodeData, 'ok' | 'separator' | 'encoding_repaired'> | null;
    if (fieldCount === 17) {
      parsed = collapseSpaces(parts[0] ?? '') === '' ? parseOld2009(parts) : null;
    } else if (fieldCount === 8 || fieldCount === 9) {
      parsed = SEX.test(collapseSpaces(parts[3] ?? ''))
        ? parseNew2012(parts)
        : fieldCount === 8
          ? parseReported2026(parts, options.today)
          : null;
    } else {
      return {
        ok: false,
        failure: 'field_count',
        field_count: fieldCount,
        detail: `${fieldCount} fields; the known layouts have 8, 9 or 17`,
      };
    }
    if (parsed === null) {
      return {
        ok: false,
        failure: 'unknown_layout',
        field_count: fieldCount,
        detail: `${fieldCount} fields that match no known layout`,
      };
    }
    return { ok: true, separator, encoding_repaired: repaired !== payload, ...parsed };
  } catch (error) {
    if (!(error instanceof InvalidField)) throw error;
    return {
      ok: false,
      failure: 'invalid_field',
      field: error.field,
      field_count: fieldCount,
      detail: error.message,
    };
  }
}
