import type { ArtefactId, DocumentData } from '@idv/contracts';
import type { SettledPrint } from '@idv/verification';
import type { ReasonCode } from '../reason-codes';
import type { RegistryField, RegistryQuery } from '../registry';

/** The document step's state and verdict types, apart from its logic so `types.ts` can name them without a circle. */

/** A photo the person sends: a document side, or a selfie frame. */
export type CaptureKind = 'front' | 'back' | 'front_angle' | 'selfie';
export type DocumentKind = 'dni' | 'passport' | 'licence';
/** Why a capture was not taken, as the pipeline says it (problems of the side) or the upload check (refusals). */
export type CaptureProblem =
  | 'blurry'
  | 'glare'
  | 'too_dark'
  | 'barcode_not_found'
  | 'mrz_not_found'
  | 'no_document'
  | 'other_side'
  | 'wrong_type'
  | 'screen'
  | 'unreadable_image'
  /** The angled front is the front's photo again, or the card seen from the same angle. */
  | 'not_tilted'
  /** The side belongs to another document than the front (another number). */
  | 'other_document'
  /** The side is of another type the step offers: the person may switch to it. */
  | `looks_like_${DocumentKind}`
  /** The front's printed data a check needs could not be read (`print_unreadable` of the reading). */
  | 'print_unreadable';

/**
 * What the readers made of one capture, as the flow needs it: the side's own problems, and the type of
 * document it showed (compared here with the type the person chose).
 */
export interface CaptureVerdict {
  problems: readonly CaptureProblem[];
  detectedType: DocumentKind | 'unsupported' | null;
}

export interface CaptureState {
  artefactId: ArtefactId;
  status: 'reading' | 'accepted' | 'refused';
  /** Captures of this side so far (each refused one counts against `maxAttempts`). */
  attempts: number;
  problem?: CaptureProblem;
  /**
   * The front's needed print its earlier photos of the same card settled (`SettledPrint`), pooled with
   * each retake's: personal data, removed with the document's at the end of retention.
   */
  settledPrint?: SettledPrint;
}

/** The document step's progress, inside the step's state. */
export interface DocumentProgress {
  type?: DocumentKind;
  captures: Partial<Record<CaptureKind, CaptureState>>;
  /** The names and verdicts of the cross-checks once decided: evidence for support, no personal data. */
  checks?: { name: string; verdict: string; reason?: string; fields?: string[] }[];
  /** The registry check (`registryCheck`), once the document's own checks passed. */
  registry?: RegistryProgress;
  /** Times the person changed the document type after choosing it (each starts the sides again). */
  typeChanges?: number;
}

/**
 * A registry check kept with the step: the query and the document the step passes with on a match
 * (personal data, like the flow's `document`). `pending` until the registry gives a definite answer
 * or the retries run out.
 */
export interface RegistryProgress {
  status: 'pending' | 'match' | 'mismatch' | 'not_found' | 'unavailable';
  query: RegistryQuery;
  document: DocumentData;
  /** The fields the registry said disagree (names only). */
  fields?: RegistryField[];
}

export type DocumentSide = Exclude<CaptureKind, 'selfie'>;

/** What the step decided once every side was read (computed by the service from the stored readings). */
export type DocumentVerdict =
  | { kind: 'passed'; document: DocumentData; checks: DocumentProgress['checks']; registry: RegistryQuery | null }
  | { kind: 'failed'; reason: ReasonCode; checks: DocumentProgress['checks'] };
