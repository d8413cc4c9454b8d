import type {
  AccountId,
  ArtefactId,
  DeviceClass,
  EvidenceArtifact,
  FlowConfig,
  InternalSession,
  Mode,
  RegistryCheckId,
  ResolveSessionBody,
  SessionId,
  TimelineEntry,
} from '@idv/contracts';
import type { FaceComparisonOutcome, LivenessChallenge, LivenessVerdict, SerialisedFaceError } from '@idv/faces';
import type { Queryable } from '@idv/kit';
import type { DocumentType, Side, SideReading } from '@idv/verification';
import type { ArtefactKind } from './artefacts';
import type { FlowState } from './engine';
import type { Locale } from './i18n';
import type { RegistryAnswer, RegistryQuery } from './registry';
import type { CaptureKind, DocumentKind } from './steps/document-state';
import type { FaceFrameSet, PreparedFrame, StoredChallenge } from './steps/face-state';
import type { OtpChannel, PreparedCapture, SendResult } from './steps/types';

/**
 * Every port of the flow-runner: what the use cases need from the world, implemented in `adapters/`
 * (PostgreSQL, the sessions service, the worker pools, the registry, mail and WhatsApp).
 */

// ---- the flow and its store ------------------------------------------------------------------------

export type FlowStatus = 'active' | 'approved' | 'rejected';

export interface FlowRecord {
  sessionId: SessionId;
  accountId: AccountId;
  mode: Mode;
  /** A try of a draft from the dashboard (test mode): no integrator hears of it. */
  isTry: boolean;
  tokenHash: string;
  bindingHash: string;
  csrfToken: string;
  config: FlowConfig;
  state: FlowState;
  status: FlowStatus;
  locale: Locale;
  /** Bumped by every stored change: a change is stored only over the version it was computed from. */
  version: number;
}

export interface FlowStore {
  findByTokenHash(tokenHash: string): Promise<FlowRecord | null>;
  find(sessionId: SessionId): Promise<FlowRecord | null>;
  /**
   * False when a record for the session already exists. `opened`: the link's first open, from a device of
   * this class (the timeline's first entries, written with the record).
   */
  insert(record: FlowRecord, opened?: { device: DeviceClass }): Promise<boolean>;
  /**
   * Stores state and status if the stored flow is still at `record.version`, and then
   * advances `record.version`. False when another submission stored a change first. Captures staged
   * by the submission are stored (encrypted) and their reading queued in the same transaction, and so
   * is the registry check's scheduling or decision.
   */
  update(record: FlowRecord, captures?: readonly StagedCapture[], registry?: RegistryCheckChange): Promise<boolean>;
  /**
   * Stores a new binding and CSRF token with the state (a hand-over), over `record.version` like
   * `update`, and then advances `record.version`. False when another change was stored first. `device`:
   * the class of the device the flow moves to (the timeline's entry, written with the change).
   */
  rebind(record: FlowRecord, device?: DeviceClass): Promise<boolean>;
}

/**
 * Every store of a flow change also writes the session's timeline entries that change reports (see
 * `domain/timeline.ts`), in the same statement or transaction: a change that lost its race reports nothing.
 */

/** A page of a session's timeline, oldest first. */
export interface TimelinePage {
  entries: TimelineEntry[];
  hasMore: boolean;
}

/** The timeline's reads (the dashboard's session page), always by account and session. */
export interface TimelinePort {
  /** Up to `limit` entries after the entry `after` (null: from the first). */
  page(accountId: AccountId, sessionId: SessionId, after: string | null, limit: number): Promise<TimelinePage>;
  /** Whether the session's link was opened (it has a flow) and the session is this account's. */
  hasFlow(accountId: AccountId, sessionId: SessionId): Promise<boolean>;
}

/** What a flow change does to its registry check, in the same transaction. */
export type RegistryCheckChange =
  | { kind: 'schedule'; stepId: string; checkId: RegistryCheckId; giveUpAt: Date }
  | { kind: 'decide'; stepId: string; attempts: number; outcome: RegistryAnswer['kind'] };

/** Where a registry check stands, from the flow as stored. */
export type RegistryCheckState =
  | { kind: 'ask'; query: RegistryQuery; mode: Mode }
  | { kind: 'decided' }
  /** The flow is gone or resolved, or the step is no longer waiting: nothing is left to do. */
  | { kind: 'gone' };

/** A capture a submission sends: stored, with its reading job, only together with the flow's change. */
export type StagedCapture =
  | {
      artefactId: ArtefactId;
      sessionId: SessionId;
      stepId: string;
      kind: CaptureKind;
      jpeg: Buffer;
      document: { type: DocumentKind; acceptedTypes: DocumentKind[] };
    }
  /** A face attempt's frames (`encodeFaceFrames`), with its judging job. */
  | { artefactId: ArtefactId; sessionId: SessionId; stepId: string; kind: 'face_frames'; bytes: Buffer; contentType: string };

/** The files of a multipart submission: a document photo, or a face attempt's frames. */
export interface SubmittedFiles {
  capture?: Buffer;
  frames?: { files: Buffer[]; overflow: boolean };
}

// ---- captures -----------------------------------------------------------------------------------

export interface StoredArtefact {
  id: ArtefactId;
  sessionId: SessionId;
  kind: ArtefactKind;
  contentType: string;
  bytes: Buffer;
  createdAt: Date;
}

/** A capture (or what a job derives from one) to store. */
export interface NewArtefact {
  id: ArtefactId;
  sessionId: SessionId;
  kind: ArtefactKind;
  bytes: Buffer;
  contentType: string;
}

/**
 * Where captures live, encrypted at rest (PostgreSQL by default). Only the latest capture of each kind
 * per session is kept: storing a new one replaces the previous one and what was read from it.
 */
export interface ArtefactStore {
  /** Stores a capture in the caller's transaction, replacing the session's previous one of that kind. */
  put(db: Queryable, input: NewArtefact): Promise<void>;
  /** Stores a capture on its own (not with a flow change), replacing the session's previous one of that kind. */
  store(input: NewArtefact): Promise<void>;
  get(id: ArtefactId): Promise<StoredArtefact | null>;
  latest(sessionId: SessionId, kind: ArtefactKind): Promise<StoredArtefact | null>;
  /** Keeps what the readers made of an artefact; a second reading of the same artefact is ignored. */
  saveReading(artefactId: ArtefactId, reading: unknown): Promise<void>;
  reading(artefactId: ArtefactId): Promise<unknown>;
  deleteCapturedBefore(cutoff: Date, batch: number): Promise<number>;
}

/** What a submission's steps need beyond the flow: checking uploads and face frames, the test-mode samples. */
export interface UploadPorts {
  prepare(bytes: Buffer): Promise<PreparedCapture>;
  samples(type: DocumentKind, side: CaptureKind, locale: Locale): readonly { id: string; label: string }[];
  sampleImage(type: DocumentKind, side: CaptureKind, sampleId: string): Promise<Buffer | null>;
  /** A face frame against the frame limits, re-encoded without metadata, or why not. */
  prepareFrame(bytes: Buffer): Promise<PreparedFrame>;
  /** Test mode's face sequences. */
  faceSamples(locale: Locale): readonly { id: string; label: string }[];
  faceSample(sampleId: string, challenge: StoredChallenge, now: number): Promise<{ image: Buffer; atMs: number }[] | null>;
  /** Whether any of these images is one of the public test-mode samples (documents or face frames), or a copy. */
  isTestSample(images: readonly Buffer[]): Promise<boolean>;
}

/** The document readers (the verification worker pool): one side of a document read from its photo. */
export interface SideReader {
  readSide(image: Buffer, options: { side: Side; acceptedTypes: DocumentType[]; today: string }): Promise<SideReading>;
}

/** A face attempt the models refused for its input (an image they could not use), as opposed to a failure of ours. */
export class FaceInputRefused extends Error {
  constructor(readonly error: SerialisedFaceError) {
    super(`${error.code}: ${error.detail}`);
    this.name = 'FaceInputRefused';
  }
}

/** The face models (the face worker pool): an attempt's liveness, and its comparison with a portrait. */
export interface FaceModels {
  /** Throws `FaceInputRefused` for frames the models cannot use. */
  liveness(input: {
    challenge: LivenessChallenge;
    nonce: string;
    attemptId: string;
    receivedAt: number;
    frames: FaceFrameSet['frames'];
    portrait?: Buffer;
  }): Promise<{ verdict: LivenessVerdict; document: FaceComparisonOutcome | null }>;
}

/** A counter or a timer as the use cases see them: prom-client's types stay inside the kit. */
export interface Counted<L extends string> {
  inc(labels: Partial<Record<L, string>>): void;
}
export interface Timed<L extends string> {
  startTimer(labels?: Partial<Record<L, string>>): () => number;
}

export interface VerificationMetrics {
  sidesRead: Counted<'side' | 'outcome'>;
  readDuration: Timed<'side'>;
  facesJudged: Counted<'outcome'>;
  judgeDuration: Timed<never>;
}

// ---- services outside ----------------------------------------------------------------------------

export type RedeemResult =
  | { ok: true; session: InternalSession }
  | { ok: false; reason: 'link_redeemed' | 'link_expired' | 'session_terminal' | 'not_found' };

export interface SessionsPort {
  redeem(token: string): Promise<RedeemResult>;
  get(sessionId: SessionId): Promise<InternalSession | null>;
  /** `terminal` when the session already ended (canceled, expired, abandoned, resolved). */
  activity(sessionId: SessionId): Promise<'ok' | 'terminal'>;
  resolve(sessionId: SessionId, body: ResolveSessionBody): Promise<'ok' | 'terminal'>;
  /**
   * Holds off abandonment until `until` while a background check decides (null: releases the hold).
   * `terminal` when the session already ended.
   */
  hold(sessionId: SessionId, until: Date | null): Promise<'ok' | 'terminal'>;
}

export interface CodeSender {
  send(channel: OtpChannel, destination: string, code: string, locale: Locale): Promise<SendResult>;
}

export interface RegistryPort {
  /** `checkId` is the same for every attempt of one check (the registry's idempotency key). */
  verify(query: RegistryQuery, checkId: RegistryCheckId): Promise<RegistryAnswer>;
}

// ---- evidence -------------------------------------------------------------------------------------

/** What the link builder and the download need of a capture, without its bytes. */
export interface EvidenceArtefact {
  id: ArtefactId;
  sessionId: SessionId;
  kind: EvidenceArtifact;
  contentType: string;
}

export type DownloadOutcome = 'served' | 'expired' | 'bad_signature';

export interface DownloadRecord {
  sessionId: SessionId;
  artefactId: ArtefactId;
  kind: EvidenceArtifact;
  clientAddress: string;
  userAgent: string | null;
  outcome: DownloadOutcome;
  at: Date;
}

/** Where evidence comes from and where downloads are recorded (PostgreSQL by default). */
export interface EvidencePort {
  /** The latest capture of each evidence kind of each session. */
  latestOf(sessionIds: readonly SessionId[]): Promise<EvidenceArtefact[]>;
  /** The artefact, only when it belongs to that session and is still the latest of its kind. */
  find(sessionId: SessionId, artefactId: ArtefactId): Promise<EvidenceArtefact | null>;
  /** The decrypted image; null when it was deleted meanwhile (retention). */
  bytes(artefactId: ArtefactId): Promise<Buffer | null>;
  record(download: DownloadRecord): Promise<void>;
}
