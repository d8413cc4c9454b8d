/**
 * The field comparisons (`checks/field-normalisation.ts`): how far a printed name read by OCR may stray
 * from the machine-readable one and still agree. Pure constants: the `./pure` entry loads this file.
 */

/**
 * A name with many letters that transliterate several ways would multiply its forms; past this many, extra
 * forms are dropped. A bound on the work, set 2026-11-23 (commit aaaa604), no figure recorded.
 */
export const MAX_NAME_FORMS = 64;

/**
 * Letters of a name per edit OCR may make in a printed name (`editDistance`: one taken for another, or two
 * narrow ones merged: FLORENCIA read FLORENOA, NOELIA read NOEUA, IÑAKI read INAM, corpus seed 99).
 * 2026-11-27 (commit c0ccda7, with each printed line's crop moved onto its row: seed 99 at 200 documents,
 * the 2009 fronts' print now read (1 of 33 before), defective documents accepted anyway 7 → 5, no genuine
 * card more rejected); no sweep of the ratio itself is recorded.
 */
export const LETTERS_PER_OCR_EDIT = 6;
