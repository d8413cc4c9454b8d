import type { Sex } from '../model';

/**
 * CUIL/CUIT: `PP-NNNNNNNN-C`, a two-digit type prefix, eight digits (a person's DNI number, zero-padded),
 * and a check digit: weights 5,4,3,2,7,6,5,4,3,2 over the first ten digits, `11 - sum mod 11`, where 11
 * becomes 0. When that gives 10 the prefix cannot carry the number: AFIP/ANSES issue it with prefix 23
 * instead, which for a man (20 → 23) always yields check digit 9 and for a woman (27 → 23) check digit 4.
 * A number whose computed digit is 10 is therefore invalid with the prefix it shows (some libraries
 * accept 9 there; we do not, see docs/documents.md "CUIL").
 *
 * Prefix and sex: until 2021 a man got 20 and a woman 27 (23/24 for duplicates and the case above).
 * Resolución 286/2021 (MTEySS) and RG Conjunta AFIP-ANSES 5007/2021 made new prefixes random among
 * 20/23/24/27, and let people under the Gender Identity Law ask for a new one: a 20 on a woman's DNI can
 * be genuine. `cuilHolderProblems` reports that combination; `checkCuil` fails on it only when asked.
 */

export const PERSON_PREFIXES = ['20', '23', '24', '27'] as const;
export const COMPANY_PREFIXES = ['30', '33', '34'] as const;
/** Prefixes AFIP assigns for international purposes (foreign entities and persons without a CUIL). */
export const INTERNATIONAL_PREFIXES = ['50', '51', '55'] as const;

export type CuitKind = 'person' | 'company' | 'international';

export type CuilFailure =
  /** Not 11 digits, bare or as `PP-NNNNNNNN-C`. */
  | 'format'
  /** A prefix AFIP does not issue. */
  | 'prefix'
  | 'check_digit';

export type CuilParseResult =
  | {
      ok: true;
      /** Formatted `PP-NNNNNNNN-C`. */
      cuil: string;
      prefix: string;
      /** The eight middle digits: for a person, the DNI number zero-padded to eight. */
      number: string;
      check_digit: number;
      kind: CuitKind;
    }
  | { ok: false; failure: CuilFailure; detail: string };

const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;

/** The check digit of prefix + eight digits, or null when the sum gives 10 (no digit fits that prefix). */
export function computeCuilCheckDigit(prefix: string, number: string): number | null {
  const digits = `${prefix}${number}`;
  if (!/^\d{10}$/.test(digits)) return null;
  let sum = 0;
  for (let index = 0; index < WEIGHTS.length; index += 1) {
    sum += Number(digits.charAt(index)) * (WEIGHTS[index] ?? 0);
  }
  const result = 11 - (sum % 11);
  if (result === 11) return 0;
  if (result === 10) return null;
  return result;
}

function kindOfPrefix(prefix: string): CuitKind | null {
  if ((PERSON_PREFIXES as readonly string[]).includes(prefix)) return 'person';
  if ((COMPANY_PREFIXES as readonly string[]).includes(prefix)) return 'company';
  if ((INTERNATIONAL_PREFIXES as readonly string[]).includes(prefix)) return 'international';
  return null;
}

export function formatCuil(prefix: string, number: string, checkDigit: number): string {
  return `${prefix}-${number}-${checkDigit}`;
}

/** Parses and validates a CUIL/CUIT. Never throws. */
export function parseCuil(input: string): CuilParseResult {
  const trimmed = input.trim();
  const match = /^(\d{2})(\d{8})(\d)$/.exec(trimmed) ?? /^(\d{2})-(\d{8})-(\d)$/.exec(trimmed);
  if (match === null) {
    return { ok: false, failure: 'format', detail: 'expected 11 digits, bare or as PP-NNNNNNNN-C' };
  }
  const [, prefix = '', number = '', check = ''] = match;
  const kind = kindOfPrefix(prefix);
  if (kind === null) return { ok: false, failure: 'prefix', detail: `prefix ${prefix} is not issued` };
  const expected = computeCuilCheckDigit(prefix, number);
  if (expected === null) {
    return {
      ok: false,
      failure: 'check_digit',
      detail: `prefix ${prefix} cannot carry ${number} (its check digit would be 10; such numbers are issued with prefix 23)`,
    };
  }
  if (expected !== Number(check)) {
    return { ok: false, failure: 'check_digit', detail: `check digit ${check}, expected ${expected}` };
  }
  return { ok: true, cuil: formatCuil(prefix, number, expected), prefix, number, check_digit: expected, kind };
}

/** A DNI number as it sits inside a CUIL: digits only, zero-padded to eight. Null if it cannot be one. */
export function dniNumberForCuil(dniNumber: string): string | null {
  const digits = dniNumber.replace(/[.\s]/g, '');
  if (!/^\d{1,8}$/.test(digits)) return null;
  return digits.padStart(8, '0');
}

/**
 * The CUIL a person with this DNI and sex got under the rule in force until 2021: 20 for men, 27 for
 * women, or 23 when that prefix cannot carry the number. Null for sex X or a malformed number. A likely
 * value to suggest, never a requirement: duplicates got 23/24, and prefixes have been random since 2021.
 */
export function defaultCuilFor(dniNumber: string, sex: Sex): string | null {
  const number = dniNumberForCuil(dniNumber);
  if (number === null || sex === 'X') return null;
  const prefix = sex === 'M' ? '20' : '27';
  const check = computeCuilCheckDigit(prefix, number);
  if (check !== null) return formatCuil(prefix, number, check);
  const fallback = computeCuilCheckDigit('23', number);
  return fallback === null ? null : formatCuil('23', number, fallback);
}

export type CuilHolderProblem =
  /** A company (30/33/34) or international (50/51/55) CUIT where a person's CUIL is expected. */
  | 'not_a_person'
  /** 20 on a woman's document or 27 on a man's: wrong under the pre-2021 rule, possible since. */
  | 'prefix_sex_mismatch'
  /** The eight middle digits are not the DNI number zero-padded. */
  | 'number_mismatch';

/**
 * How a valid CUIL disagrees with the document it came with. Fields the document does not give (sex or
 * number null) are not judged. Sex X is not judged against the prefix: no rule for it is published.
 */
export function cuilHolderProblems(
  cuil: Extract<CuilParseResult, { ok: true }>,
  holder: { sex: Sex | null; number: string | null },
): CuilHolderProblem[] {
  const problems: CuilHolderProblem[] = [];
  if (cuil.kind !== 'person') problems.push('not_a_person');
  if (cuil.kind === 'person' && ((cuil.prefix === '20' && holder.sex === 'F') || (cuil.prefix === '27' && holder.sex === 'M'))) {
    problems.push('prefix_sex_mismatch');
  }
  if (holder.number !== null && dniNumberForCuil(holder.number) !== cuil.number) problems.push('number_mismatch');
  return problems;
}
