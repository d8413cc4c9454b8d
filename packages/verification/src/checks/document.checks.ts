import type { DocumentReasonCode, DocumentType, FieldName, IsoDate, Sex } from '../model';
import { cuilHolderProblems, parseCuil } from '../parsers/cuil.parser';
import { assertIsoDate } from '../parsers/dates';
import { documentTypeOfMrz, type MrzParseResult } from '../parsers/mrz.parser';
import { compareFields, type ComparableFields } from './compare-fields';

/**
 * The document checks as pure functions. Each returns a verdict: `passed`, `failed` with one reason code
 * from the closed set (model.ts), or `inconclusive` when the input cannot decide (no expiry date read, no
 * CUIL printed); what an inconclusive verdict means for the step is the pipeline's decision.
 */
export type CheckName = 'readable' | 'document_type' | 'expiry' | 'mrz' | 'cuil' | 'data_consistency';

export type CheckVerdict =
  | { status: 'passed'; check: CheckName }
  | {
      status: 'failed';
      check: CheckName;
      reason_code: DocumentReasonCode;
      /** Names what failed without the holder's data, so it can be logged. */
      detail: string;
      /** The fields at fault, when the failure is about fields. */
      fields?: FieldName[];
    }
  | { status: 'inconclusive'; check: CheckName; detail: string };

const passed = (check: CheckName): CheckVerdict => ({ status: 'passed', check });

/** The fields without which a document cannot identify anyone. */
export const IDENTIFYING_FIELDS: readonly FieldName[] = ['number', 'surname', 'given_names', 'birth_date'];

/** `document_unreadable` when nothing was read, or when a required field is missing. */
export function checkReadable(
  fields: ComparableFields | null,
  required: readonly FieldName[] = IDENTIFYING_FIELDS,
): CheckVerdict {
  if (fields === null) {
    return { status: 'failed', check: 'readable', reason_code: 'document_unreadable', detail: 'no source could be read' };
  }
  const missing = required.filter((field) => {
    const value = fields[field];
    return value === null || value === undefined || value.trim() === '';
  });
  if (missing.length === 0) return passed('readable');
  return {
    status: 'failed',
    check: 'readable',
    reason_code: 'document_unreadable',
    detail: `missing ${missing.join(', ')}`,
    fields: missing,
  };
}

/**
 * `document_type_mismatch` when the document read is not one the step accepts (its `documents`
 * parameter, or the type the user chose). 'unsupported' is a document we recognise but do not verify,
 * such as a foreign ID card.
 */
export function checkDocumentType(detected: DocumentType | 'unsupported', accepted: readonly DocumentType[]): CheckVerdict {
  if (detected !== 'unsupported' && accepted.includes(detected)) return passed('document_type');
  return {
    status: 'failed',
    check: 'document_type',
    reason_code: 'document_type_mismatch',
    detail: `${detected} is not among the accepted documents (${accepted.join(', ')})`,
    fields: ['doc_type'],
  };
}

/**
 * `document_expired` when the expiry date is before `today` (a document is valid through its expiry day).
 * Inconclusive without an expiry date: the 2012+ DNI barcode carries none, so it comes from the printed
 * front.
 */
export function checkExpiry(expiryDate: IsoDate | null, today: IsoDate): CheckVerdict {
  assertIsoDate(today, 'today');
  if (expiryDate === null) return { status: 'inconclusive', check: 'expiry', detail: 'no expiry date was read' };
  assertIsoDate(expiryDate, 'expiryDate');
  if (expiryDate >= today) return passed('expiry');
  return {
    status: 'failed',
    check: 'expiry',
    reason_code: 'document_expired',
    detail: 'the expiry date is before today',
    fields: ['expiry_date'],
  };
}

/**
 * `document_mrz_invalid` when a check digit fails, a date is no date or the sex is unknown to ICAO;
 * `document_unreadable` when the text is not an MRZ at all (wrong line lengths or characters), which is
 * a capture problem rather than a document one.
 */
export function checkMrz(mrz: MrzParseResult): CheckVerdict {
  if (!mrz.ok) {
    return { status: 'failed', check: 'mrz', reason_code: 'document_unreadable', detail: `no MRZ: ${mrz.detail}` };
  }
  // A check digit is mod 10: an OCR slip turning one digit into a letter (5 → S) can still satisfy it.
  // A DNI's document number is its 7 or 8 digits, so letters there are never genuine.
  if (mrz.valid && documentTypeOfMrz(mrz) === 'dni' && !/^\d{7,8}$/.test(mrz.fields.document_number)) {
    return { status: 'failed', check: 'mrz', reason_code: 'document_mrz_invalid', detail: 'document_number: not a DNI number' };
  }
  if (mrz.valid) return passed('mrz');
  return {
    status: 'failed',
    check: 'mrz',
    reason_code: 'document_mrz_invalid',
    detail: mrz.problems.map((problem) => `${problem.field}: ${problem.problem}`).join('; '),
  };
}

export interface CuilCheckOptions {
  /**
   * Whether prefix 20 on a woman's document (or 27 on a man's) fails. Off by default: prefixes have been
   * assigned at random since Resolución 286/2021, and people who changed their registered sex may keep
   * or renew theirs, so the combination occurs on genuine documents (docs/documents.md "CUIL").
   */
  requirePrefixMatchingSex?: boolean;
}

/**
 * `document_cuil_invalid` when the CUIL is malformed, fails its check digit, is a company's, does not
 * contain the DNI number, or (only with `requirePrefixMatchingSex`) carries the other sex's prefix.
 * Inconclusive when there is no CUIL.
 */
export function checkCuil(
  cuil: string | null,
  holder: { sex: Sex | null; number: string | null },
  options: CuilCheckOptions = {},
): CheckVerdict {
  if (cuil === null) return { status: 'inconclusive', check: 'cuil', detail: 'no CUIL was read' };
  const parsed = parseCuil(cuil);
  const fail = (detail: string): CheckVerdict => ({
    status: 'failed',
    check: 'cuil',
    reason_code: 'document_cuil_invalid',
    detail,
    fields: ['cuil'],
  });
  if (!parsed.ok) return fail(`${parsed.failure}: ${parsed.detail}`);
  const requireSex = options.requirePrefixMatchingSex ?? false;
  const problems = cuilHolderProblems(parsed, holder).filter((problem) => requireSex || problem !== 'prefix_sex_mismatch');
  return problems.length === 0 ? passed('cuil') : fail(problems.join(', '));
}

/** One source of fields and its name in verdicts ('barcode', 'mrz', 'front_text', 'registry' ...). */
export interface NamedSource {
  name: string;
  fields: ComparableFields;
}

/**
 * `document_data_mismatch` when any two sources disagree on any of `fields`; the verdict lists the
 * fields and its detail names the pairs. Fewer than two sources pass: there is nothing to compare.
 */
export function checkDataConsistency(sources: readonly NamedSource[], fields: readonly FieldName[]): CheckVerdict {
  const mismatched = new Set<FieldName>();
  const pairs: string[] = [];
  sources.forEach((left, index) => {
    for (const right of sources.slice(index + 1)) {
      const disagreements = compareFields(left.fields, right.fields, fields);
      if (disagreements.length === 0) continue;
      disagreements.forEach((field) => mismatched.add(field));
      pairs.push(`${left.name} vs ${right.name}: ${disagreements.join(', ')}`);
    }
  });
  if (mismatched.size === 0) return passed('data_consistency');
  return {
    status: 'failed',
    check: 'data_consistency',
    reason_code: 'document_data_mismatch',
    detail: pairs.join('; '),
    fields: fields.filter((field) => mismatched.has(field)),
  };
}
