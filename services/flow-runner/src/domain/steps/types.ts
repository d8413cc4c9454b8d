import type { ArtefactId, DocumentData, FlowConfig, FormField, LeafStep, Mode, SessionId } from '@idv/contracts';
import type { Messages, Locale } from '../i18n';
import type { ReasonCode } from '../reason-codes';
import type { CaptureKind, DocumentKind, DocumentProgress } from './document-state';
import type { FaceFrameSet, FaceProgress, PreparedFrame, StoredChallenge } from './face-state';
import type { FormFeedback, StepView } from '../view';

/** The platform's consent step, always first; not part of the published configuration. */
export interface ConsentStep {
  id: 'consent';
  type: 'consent';
}

/** A step a person completes on one page: every configured step type except `choice`, plus consent. */
export type RunnableStep = LeafStep | ConsentStep;
export type RunnableType = RunnableStep['type'];

export type OtpChannel = 'email' | 'whatsapp';

/** An upload made safe to read (upright, no metadata, JPEG), or why it was refused. */
export type PreparedCapture =
  | { ok: true; jpeg: Buffer; width: number; height: number }
  | { ok: false; reason: 'empty' | 'too_large' | 'heic' | 'unsupported_type' | 'too_many_pixels' | 'corrupt' };

/**
 * A code as kept in the step's state (JSON, so instants are epoch milliseconds): only its salted
 * hash; the counters are per step, across resends.
 */
export interface OtpRecord {
  channel: OtpChannel;
  destination: string;
  codeHash: string;
  expiresAt: number;
  lastSentAt: number;
  /** Codes sent for this step (the first one plus resends). */
  sends: number;
  /** Wrong codes entered for this step. */
  attempts: number;
}

export type SendResult = { ok: true } | { ok: false; error: string };

/** What a step module may touch outside itself; the service wires the real adapters. */
export interface StepPorts {
  /**
   * Stores the flow as the step has changed it so far, before an effect that cannot be taken back
   * (sending a code). Throws `ConcurrentSubmission` when another submission changed the flow first;
   * the service then runs this submission again on the newer flow.
   */
  checkpoint(): Promise<void>;
  sendCode(channel: OtpChannel, destination: string, code: string, locale: Locale): Promise<SendResult>;
  /** Checks an upload's bytes and re-encodes it (off the event loop). */
  prepareCapture(bytes: Buffer): Promise<PreparedCapture>;
  /**
   * Stages a capture: it is stored, encrypted, and its reading queued in the same transaction as the
   * flow's next store, or not at all. Returns the artefact id it will have.
   */
  stageCapture(kind: CaptureKind, jpeg: Buffer, document: { type: DocumentKind; acceptedTypes: DocumentKind[] }): ArtefactId;
  /** Whether any of these (prepared) images is one of the public test-mode samples, or a copy of one. */
  isTestSample(images: readonly Buffer[]): Promise<boolean>;
  /** Test mode: a sample document's image for a side (the same bytes a camera would send), or null. */
  sampleImage(type: DocumentKind, side: CaptureKind, sampleId: string): Promise<Buffer | null>;
  /**
   * A face frame checked against the frame limits (type, bytes, pixels, size) and re-encoded without its
   * metadata (off the event loop), or why it cannot be judged.
   */
  prepareFrame(bytes: Buffer): Promise<PreparedFrame>;
  /**
   * Stages a face attempt's frames like a capture: stored encrypted with what judging them needs, and
   * the job queued, in the same transaction as the flow's next store. Returns the artefact id.
   */
  stageFaceFrames(set: FaceFrameSet): ArtefactId;
  /** Test mode: a sample face sequence's frames laid out for this challenge (its poses, in its order), or null. */
  faceSample(sampleId: string, challenge: StoredChallenge, now: number): Promise<{ image: Buffer; atMs: number }[] | null>;
}

/** Per-step scratch state kept in the flow record (e.g. which screen of an OTP step is showing). */
export interface StepState {
  status: 'pending' | 'passed' | 'failed' | 'skipped';
  reason?: ReasonCode;
  phase?: string;
  /** The code of an `otp_*` step. */
  otp?: OtpRecord;
  /** The captures of a `document_ar` step. */
  document?: DocumentProgress;
  /** The attempts of a `face_liveness` step. */
  face?: FaceProgress;
}

/** Another submission of the same flow was stored first: this one must be run again on the newer flow. */
export class ConcurrentSubmission extends Error {
  constructor() {
    super('the flow changed during this submission');
    this.name = 'ConcurrentSubmission';
  }
}

export interface StepContext<S extends RunnableStep = RunnableStep> {
  sessionId: SessionId;
  step: S;
  /** The flow's frozen configuration. */
  config: FlowConfig;
  /** Days captures and what was read from them are kept (ARTEFACT_RETENTION_DAYS): the consent says so. */
  retentionDays: number;
  mode: Mode;
  locale: Locale;
  t: Messages;
  now: Date;
  timeScale: number;
  state: StepState;
  ports: StepPorts;
  /** The file the person sent with this submission (multipart), if any. */
  upload?: Buffer;
  /** The face frames sent with this submission (multipart `frame` files, in order); `overflow` when more came than may. */
  frames?: { files: Buffer[]; overflow: boolean };
  /** Test mode: the sample face sequences offered. */
  faceSamples(): readonly { id: string; label: string }[];
  /** The accepted front capture of the last passed `document_ar` step before this one, or null. */
  documentFront(): ArtefactId | null;
  /** Test mode: the sample documents offered for a side. */
  samples(type: DocumentKind, side: CaptureKind): readonly { id: string; label: string }[];
}

/** What accepting input did: stay on the step (with feedback), or the step's verdict. */
export type StepOutcome =
  | { kind: 'stay'; feedback?: FormFeedback }
  | {
      kind: 'passed';
      formData?: Record<string, string>;
      verified?: { email?: string; phone?: string };
      document?: DocumentData;
    }
  | { kind: 'failed'; reason: ReasonCode };

/**
 * One step type. `render` draws the step's page, `accept` takes a submission and returns the outcome;
 * the verdict follows from the outcome (passed → approved, failed → rejected). Adding `document_ar`
 * or `face_liveness` is writing one more of these and registering it in `steps/index.ts`.
 */
export interface StepModule<S extends RunnableStep = RunnableStep> {
  readonly type: S['type'];
  render(ctx: StepContext<S>, feedback: FormFeedback): Promise<StepView> | StepView;
  accept(ctx: StepContext<S>, input: Record<string, string>): Promise<StepOutcome> | StepOutcome;
}

export type { FormField };
