import type { DocumentFields, FieldName } from '../model';
import { normaliseDate } from '../parsers/dates';
import { digitsOnly, namesMatch, normaliseCountry, normaliseDocumentNumber, normaliseSex } from './field-normalisation';

/**
 * What one source read, as compared. Values may be written as each source writes them ('12.345.678',
 * '01 NOV 1969', 'MUÑOZ'); they are normalised before comparing. `names_truncated` marks a source whose
 * names may be cut short (an MRZ with a full name field, `MrzData.names_truncated`), `names_by_ocr` one
 * whose names were read from the print by OCR.
 */
export type ComparableFields = { readonly [K in FieldName]?: string | null } & {
  readonly names_truncated?: boolean;
  /** The names were read by OCR from the card's print (`NameSource.ocr`). */
  readonly names_by_ocr?: boolean;
};

type Verdict = 'match' | 'mismatch' | 'not_comparable';

function compareNormalised(a: string, b: string, normalise: (value: string) => string | null): Verdict {
  const left = normalise(a);
  const right = normalise(b);
  // A value that cannot be normalised was misread, not contradicted: the readability check owns that.
  if (left === null || right === null) return 'not_comparable';
  return left === right ? 'match' : 'mismatch';
}

function compareField(field: FieldName, a: ComparableFields, b: ComparableFields): Verdict {
  const left = a[field];
  const right = b[field];
  if (left === null || left === undefined || right === null || right === undefined) return 'not_comparable';
  switch (field) {
    case 'surname':
    case 'given_names':
      return namesMatch(
        left,
        right,
        { truncated: a.names_truncated ?? false, ocr: a.names_by_ocr ?? false },
        { truncated: b.names_truncated ?? false, ocr: b.names_by_ocr ?? false },
      )
        ? 'match'
        : 'mismatch';
    case 'number':
      return compareNormalised(left, right, normaliseDocumentNumber);
    case 'cuil':
    case 'tramite':
      return compareNormalised(left, right, digitsOnly);
    case 'birth_date':
    case 'expiry_date':
    case 'issue_date':
      return compareNormalised(left, right, normaliseDate);
    case 'sex':
      return compareNormalised(left, right, normaliseSex);
    case 'nationality':
    case 'issuing_state':
      return compareNormalised(left, right, normaliseCountry);
    case 'doc_type':
    case 'series':
      return compareNormalised(left, right, (value) => value.trim().toUpperCase() || null);
  }
}

/**
 * The fields, among `fields`, on which two sources disagree, in the order asked. A field that either
 * source lacks (null, absent, or unreadable) is not a disagreement: only what both say is compared.
 */
export function compareFields(a: ComparableFields, b: ComparableFields, fields: readonly FieldName[]): FieldName[] {
  return fields.filter((field) => compareField(field, a, b) === 'mismatch');
}

/**
 * Whether two sources say the same of one field: true when they agree, false when they disagree, null
 * when either lacks it or wrote it unreadably (`compareFields` counts only the disagreements).
 */
export function fieldsAgree(a: ComparableFields, b: ComparableFields, field: FieldName): boolean | null {
  const verdict = compareField(field, a, b);
  return verdict === 'not_comparable' ? null : verdict === 'match';
}

/** The comparable view of parsed domain fields, with the truncation flag of their source. */
export function comparable(fields: DocumentFields, namesTruncated = false): ComparableFields {
  return { ...fields, names_truncated: namesTruncated };
}

// The printed fields whose rows stand next to rows that read alike: a crop that lands on its neighbour's
// row reads the neighbour's value (no layout reads the issue date, but its row stands among the dates).
const NEIGHBOURS: Partial<Record<FieldName, readonly FieldName[]>> = {
  surname: ['given_names'],
  given_names: ['surname'],
  birth_date: ['issue_date', 'expiry_date'],
  expiry_date: ['issue_date', 'birth_date'],
};

/**
 * Printed fields without those whose value is, according to `authority` (the barcode's or valid MRZ's
 * fields), a neighbouring field's: the crop landed on the next row (a photo in perspective shifts the
 * rows against a layout placed by rotation alone; seed 99: given names read `SANCHEZ MULLER`, the
 * surname). Such a value says nothing about the field it was read for, neither agreement nor a
 * difference.
 */
export function withoutMisplacedValues<T extends ComparableFields>(printed: T, authority: ComparableFields): T {
  const kept: Record<string, unknown> = { ...printed };
  for (const [field, neighbours] of Object.entries(NEIGHBOURS) as [FieldName, readonly FieldName[]][]) {
    const value = printed[field];
    if (value === null || value === undefined || compareField(field, printed, authority) !== 'mismatch') continue;
    const neighbourValue = neighbours.some(
      (neighbour) => compareField(neighbour, { ...printed, [neighbour]: value }, authority) === 'match',
    );
    if (neighbourValue) delete kept[field];
  }
  return kept as T;
}
