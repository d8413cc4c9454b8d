/**
 * The document domain shared by the parsers, the checks and (later) the readers. Field names follow the
 * public API's `result.document` (packages/contracts `DocumentDataSchema`) so a verdict can be turned into
 * the API shape without renaming; the extra fields (tramite, issue_date, nationality, issuing_state) are
 * what the documents carry beyond it and what cross-checks need.
 */

export const DOCUMENT_TYPES = ['dni', 'passport', 'licence'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** The captured artefacts of a document (docs/design.md "Verification engine"); the selfie belongs to the face step. */
export const SIDES = ['front', 'back', 'front_angle'] as const;
export type Side = (typeof SIDES)[number];

/** 'X' is the non-binary marker of Argentine documents since 2021 and ICAO's "unspecified" ('<' in an MRZ). */
export const SEXES = ['M', 'F', 'X'] as const;
export type Sex = (typeof SEXES)[number];

/** A calendar date as `YYYY-MM-DD`. Produced only by the date helpers, which reject impossible dates. */
export type IsoDate = string;

/**
 * What one source (barcode, MRZ, printed text, registry) says about the holder. `null` means the source
 * does not carry the field or it could not be read; it never means "empty", so a comparison skips it.
 */
export interface DocumentFields {
  doc_type: DocumentType | null;
  /** The DNI "ejemplar" letter (A for the first card, B for the second, ...). */
  series: string | null;
  /** Digits only: no dots, no leading letter. */
  number: string | null;
  surname: string | null;
  given_names: string | null;
  sex: Sex | null;
  birth_date: IsoDate | null;
  /** Formatted `NN-NNNNNNNN-N`. */
  cuil: string | null;
  expiry_date: IsoDate | null;
  issue_date: IsoDate | null;
  /** The DNI trámite number (11 digits), which identifies the issuance. */
  tramite: string | null;
  /** ICAO 9303 code (three letters, or fewer padded ones like 'D' for Germany) when known. */
  nationality: string | null;
  issuing_state: string | null;
}

export type FieldName = keyof DocumentFields;

export const FIELD_NAMES: readonly FieldName[] = [
  'doc_type',
  'series',
  'number',
  'surname',
  'given_names',
  'sex',
  'birth_date',
  'cuil',
  'expiry_date',
  'issue_date',
  'tramite',
  'nationality',
  'issuing_state',
];

export function emptyDocumentFields(): DocumentFields {
  return {
    doc_type: null,
    series: null,
    number: null,
    surname: null,
    given_names: null,
    sex: null,
    birth_date: null,
    cuil: null,
    expiry_date: null,
    issue_date: null,
    tramite: null,
    nationality: null,
    issuing_state: null,
  };
}

/**
 * The closed set of document reason codes (docs/api.md "Reason codes"). The parsing and checking layer
 * produces the first six; the screen, angle and registry codes are produced by the image and registry
 * checks that live elsewhere, and are listed here so every verdict speaks one vocabulary.
 */
export const DOCUMENT_REASON_CODES = [
  'document_unreadable',
  'document_type_mismatch',
  'document_expired',
  'document_data_mismatch',
  'document_mrz_invalid',
  'document_cuil_invalid',
  'document_screen_detected',
  'document_angle_mismatch',
  'document_registry_mismatch',
  'document_registry_unavailable',
] as const;
export type DocumentReasonCode = (typeof DOCUMENT_REASON_CODES)[number];
