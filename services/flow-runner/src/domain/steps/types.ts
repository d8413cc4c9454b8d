import type { FormField, LeafStep, Mode } from '@idv/contracts';
import type { Messages, Locale } from '../i18n';
import type { ReasonCode } from '../reason-codes';
import type { FormFeedback, SafeHtml, StepView } from '../view';

/** The platform's consent step, always first; not part of the published configuration. */
export interface ConsentStep {
  id: 'consent';
  type: 'consent';
}

/** A step a person completes on one page: every configured step type except `choice`, plus consent. */
export type RunnableStep = LeafStep | ConsentStep;
export type RunnableType = RunnableStep['type'];

export type OtpChannel = 'email' | 'whatsapp';

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
}

/** Per-step scratch state kept in the flow record (e.g. which screen of an OTP step is showing). */
export interface StepState {
  status: 'pending' | 'passed' | 'failed' | 'skipped';
  reason?: ReasonCode;
  phase?: string;
  /** The code of an `otp_*` step. */
  otp?: OtpRecord;
}

/** Another submission of the same flow was stored first: this one must be run again on the newer flow. */
export class ConcurrentSubmission extends Error {
  constructor() {
    super('the flow changed during this submission');
    this.name = 'ConcurrentSubmission';
  }
}

export interface StepContext<S extends RunnableStep = RunnableStep> {
  step: S;
  mode: Mode;
  locale: Locale;
  t: Messages;
  now: Date;
  timeScale: number;
  state: StepState;
  ports: StepPorts;
  /** Wraps inputs in a POST form to this step, with the CSRF token and the step id as hidden fields. */
  form(inner: SafeHtml, options?: { novalidate?: boolean }): SafeHtml;
}

/** What accepting input did: stay on the step (with feedback), or the step's verdict. */
export type StepOutcome =
  | { kind: 'stay'; feedback?: FormFeedback }
  | { kind: 'passed'; formData?: Record<string, string>; verified?: { email?: string; phone?: string } }
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
