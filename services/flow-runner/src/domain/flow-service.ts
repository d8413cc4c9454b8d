import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  FlowConfigSchema,
  fastUlid,
  newArtefactId,
  type DocumentData,
  type FlowConfig,
  type InternalSession,
  type Mode,
  type ResolveSessionBody,
} from '@idv/contracts';
import { applyOutcome, chooseOption, initialState, leaveOption, position, resolution, type FlowState } from './engine';
import { messages, type Locale } from './i18n';
import { renderChoice } from './steps/choice';
import {
  ConcurrentSubmission,
  moduleFor,
  type CaptureKind,
  type DocumentKind,
  type OtpChannel,
  type PreparedCapture,
  type SendResult,
  type StepContext,
  type StepOutcome,
} from './steps';
import { applyFaceJudgement, type FaceJudgement, type PreparedFrame, type StoredChallenge } from './steps/face';
import { encodeFaceFrames, FACE_FRAMES_CONTENT_TYPE } from './face-frames';
import {
  applyCaptureReading,
  problemOfType,
  registryPending,
  sideBeingRead,
  type CaptureProblem,
  type CaptureVerdict,
  type DocumentProgress,
  type DocumentVerdict,
} from './steps/document';
import { registryHoldUntil, type RegistryAnswer, type RegistryQuery } from './registry';
import { REASON_CODES, type ReasonCode } from './reason-codes';
import { HANDOVER_VALIDITY_MS, movedAwayFrom, offerHandover, takeHandover, type OfferedToken } from './handover';
import { KeyedSerializer } from './keyed-serializer';
import { html, raw, type FormFeedback, type SafeHtml, type StepView } from './view';

// ---- ports -------------------------------------------------------------------------------------

export type FlowStatus = 'active' | 'approved' | 'rejected';

export interface FlowRecord {
  sessionId: string;
  accountId: string;
  mode: Mode;
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

/**
 * A page view right after the sessions service confirmed the session active (the redeem, or the
 * submission whose redirect it follows) trusts that confirmation instead of asking again, once and
 * within this long. A reload, a later view or one served by another replica asks: a session canceled
 * meanwhile shows why, never the flow. A submission is always checked.
 */
export const STATUS_FRESH_MS = 1000;

/** Sessions confirmed active a moment ago, each for the one page view that follows, in this process. */
class ConfirmedForNextView {
  private readonly confirmedAt = new Map<string, number>();

  constructor(private readonly clock: () => number) {}

  add(sessionId: string, confirmedAt: Date): void {
    const now = this.clock();
    this.confirmedAt.delete(sessionId); // re-inserted last: the map stays (about) in order of confirmation
    this.confirmedAt.set(sessionId, confirmedAt.getTime());
    for (const [id, at] of this.confirmedAt) {
      if (now - at <= STATUS_FRESH_MS) break;
      this.confirmedAt.delete(id); // a redirect nobody followed
    }
  }

  /** True once per confirmation, if it is recent enough. */
  take(sessionId: string): boolean {
    const at = this.confirmedAt.get(sessionId);
    if (at === undefined) return false;
    this.confirmedAt.delete(sessionId);
    return this.clock() - at <= STATUS_FRESH_MS;
  }
}

/**
 * A submission that lost a race (another replica stored a change of the same flow first) is run again
 * on the newer flow, up to this many times; on one replica submissions of a flow are queued instead.
 */
const SUBMISSION_ATTEMPTS = 10;

export interface FlowStore {
  findByTokenHash(tokenHash: string): Promise<FlowRecord | null>;
  find(sessionId: string): Promise<FlowRecord | null>;
  /** False when a record for the session already exists. */
  insert(record: FlowRecord): Promise<boolean>;
  /**
   * Stores state and status if the stored flow is still at `record.version`, and then
   * advances `record.version`. False when another submission stored a change first. Captures staged
   * by the submission are stored (encrypted) and their reading queued in the same transaction, and so
   * is the registry check's scheduling or decision.
   */
  update(record: FlowRecord, captures?: readonly StagedCapture[], registry?: RegistryCheckChange): Promise<boolean>;
  /**
   * Stores a new binding and CSRF token with the state (a hand-over), over `record.version` like
   * `update`, and then advances `record.version`. False when another change was stored first.
   */
  rebind(record: FlowRecord): Promise<boolean>;
}

/** What a flow change does to its registry check, in the same transaction. */
export type RegistryCheckChange =
  | { kind: 'schedule'; stepId: string; checkId: string; giveUpAt: Date }
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
      artefactId: string;
      sessionId: string;
      stepId: string;
      kind: CaptureKind;
      jpeg: Buffer;
      document: { type: DocumentKind; acceptedTypes: DocumentKind[] };
    }
  /** A face attempt's frames (`encodeFaceFrames`), with its judging job. */
  | { artefactId: string; sessionId: string; stepId: string; kind: 'face_frames'; bytes: Buffer; contentType: string };

/** The files of a multipart submission: a document photo, or a face attempt's frames. */
export interface SubmittedFiles {
  capture?: Buffer;
  frames?: { files: Buffer[]; overflow: boolean };
}

/** What the document step needs beyond the flow: checking uploads, samples, deciding from readings. */
export interface CapturePorts {
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
  /**
   * What a side read after the front says against the accepted front, from both stored readings: the
   * angled front the front's photo again or seen from the same angle (`not_tilted`), a back of another
   * document (`other_document`).
   */
  againstFront(input: { front: string; capture: string; side: 'back' | 'front_angle' }): Promise<CaptureProblem[]>;
  /** Decides a document whose every side was accepted, from the readings stored for its captures. */
  decideDocument(input: {
    progress: DocumentProgress;
    acceptedTypes: DocumentKind[];
    registryCheck: boolean;
    sessionId: string;
    mode: Mode;
  }): Promise<DocumentVerdict>;
}

export type RedeemResult =
  | { ok: true; session: InternalSession }
  | { ok: false; reason: 'link_redeemed' | 'link_expired' | 'session_terminal' | 'not_found' };

export interface SessionsPort {
  redeem(token: string): Promise<RedeemResult>;
  get(sessionId: string): Promise<InternalSession | null>;
  /** `terminal` when the session already ended (canceled, expired, abandoned, resolved). */
  activity(sessionId: string): Promise<'ok' | 'terminal'>;
  resolve(sessionId: string, body: ResolveSessionBody): Promise<'ok' | 'terminal'>;
  /**
   * Holds off abandonment until `until` while a background check decides (null: releases the hold).
   * `terminal` when the session already ended.
   */
  hold(sessionId: string, until: Date | null): Promise<'ok' | 'terminal'>;
}

export interface CodeSender {
  send(channel: OtpChannel, destination: string, code: string, locale: Locale): Promise<SendResult>;
}

// ---- what the pages show --------------------------------------------------------------------------

/** Pages that are not the flow itself: why the person cannot (or no longer needs to) continue. */
export type StatusPage =
  | 'approved'
  | 'rejected'
  | 'used'
  | 'expired'
  | 'abandoned'
  | 'canceled'
  | 'finished'
  | 'not_found'
  | 'csrf'
  | 'throttled'
  /** This browser handed the flow over to another device. */
  | 'moved'
  /** A hand-over code that expired, was used or never existed. */
  | 'handover_invalid';

export interface FlowPage {
  kind: 'flow';
  sessionId: string;
  testMode: boolean;
  /** Test mode with a code step somewhere in the flow: the banner tells the test code. */
  testCode: boolean;
  csrfToken: string;
  stepId: string;
  view: StepView;
  progress: { index: number; total: number };
  /** The person is inside an option of a choice and may go back to the list. */
  canLeaveOption: boolean;
  hasErrors: boolean;
  /** The stored flow's version this page was rendered from: a waiting page reloads when it changes. */
  version: number;
  /** A camera page's offer to continue on another device (its token is stored, as a hash, before it is shown). */
  handover?: OfferedToken;
}

export type ShowResult =
  | FlowPage
  | {
      kind: 'status';
      page: StatusPage;
      testMode: boolean;
      sessionId?: string;
      /** A rejection's reason codes: the page says what went wrong in the person's words. */
      reasons?: readonly ReasonCode[];
    };
export type OpenResult = { kind: 'redirect'; sessionId: string; bindingSecret?: string } | { kind: 'status'; page: StatusPage };
export type SubmitResult = ShowResult | { kind: 'redirect'; sessionId: string };
export type SubmissionAdmission =
  | { kind: 'admitted'; acceptsCsrf: (presented: string | undefined) => boolean }
  | { kind: 'status'; page: StatusPage; testMode: boolean };
export type HandOverResult =
  { kind: 'moved'; sessionId: string; bindingSecret: string } | { kind: 'status'; page: 'handover_invalid' | 'finished' };

// ---- helpers --------------------------------------------------------------------------------------

export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const randomToken = () => randomBytes(32).toString('base64url');

function sameSecret(presented: string | undefined, expectedHash: string): boolean {
  if (!presented) return false;
  const a = Buffer.from(sha256(presented), 'hex');
  const b = Buffer.from(expectedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

function sameToken(presented: string | undefined, expected: string): boolean {
  if (!presented) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The page of a stored verdict: a rejection carries its reasons (what went wrong, told in the person's words). */
const verdictPage = (record: FlowRecord, outcome: 'approved' | 'rejected'): ShowResult => ({
  kind: 'status',
  page: outcome,
  testMode: record.mode === 'test',
  sessionId: record.sessionId,
  ...(outcome === 'rejected' ? { reasons: [...new Set(record.state.reasons)] } : {}),
});

/** Why a browser without this flow's binding cannot see it: it handed the flow over, or never had it. */
const notBoundPage = (record: FlowRecord, presented: string | undefined): StatusPage =>
  movedAwayFrom(record.state, presented) ? 'moved' : 'used';

/** A page view that cannot store its hand-over offer after this many lost races goes without it. */
const HANDOVER_OFFER_ATTEMPTS = 3;

const STATUS_PAGE_OF: Partial<Record<InternalSession['status'], StatusPage>> = {
  expired: 'expired',
  abandoned: 'abandoned',
  canceled: 'canceled',
  approved: 'finished',
  rejected: 'finished',
};

/** ARTEFACT_RETENTION_DAYS's default, for a service built without it. */
const DEFAULT_RETENTION_DAYS = 30;

export interface FlowServiceOptions {
  store: FlowStore;
  /** Days captures and their readings are kept (ARTEFACT_RETENTION_DAYS), as the consent tells the person. */
  retentionDays?: number;
  sessions: SessionsPort;
  sender: CodeSender;
  captures: CapturePorts;
  timeScale: number;
  now?: () => Date;
  onResolved?: (outcome: 'approved' | 'rejected') => void;
  /** How long a registry that does not answer is asked again (already scaled by TIME_SCALE). */
  registryRetryWindowMs?: number;
  /** A registry check was stored: the runner may start on it now rather than at its next poll. */
  onRegistryCheckScheduled?: () => void;
}

/** The person's flow: open the link once, show the current step, accept submissions, resolve. */
export class FlowService {
  private readonly now: () => Date;
  private readonly confirmedForNextView: ConfirmedForNextView;
  private readonly submissionsOfFlow = new KeyedSerializer();

  constructor(private readonly options: FlowServiceOptions) {
    this.now = options.now ?? (() => new Date());
    this.confirmedForNextView = new ConfirmedForNextView(() => this.now().getTime());
  }

  /** First open redeems the token and binds the browser; the same browser reopening goes back to its flow. */
  async openLink(token: string, bindingSecret: (sessionId: string) => string | undefined, locale: Locale): Promise<OpenResult> {
    const tokenHash = sha256(token);
    const existing = await this.options.store.findByTokenHash(tokenHash);
    if (existing) {
      const presented = bindingSecret(existing.sessionId);
      return sameSecret(presented, existing.bindingHash)
        ? { kind: 'redirect', sessionId: existing.sessionId }
        : { kind: 'status', page: notBoundPage(existing, presented) };
    }
    const asked = this.now();
    const redeemed = await this.options.sessions.redeem(token);
    if (!redeemed.ok) {
      switch (redeemed.reason) {
        case 'link_redeemed':
          return { kind: 'status', page: 'used' };
        case 'link_expired':
          return { kind: 'status', page: 'expired' };
        case 'session_terminal':
          return { kind: 'status', page: 'finished' };
        case 'not_found':
          return { kind: 'status', page: 'not_found' };
      }
    }
    const session = redeemed.session;
    const config = FlowConfigSchema.parse(session.config);
    const secret = randomToken();
    await this.options.store.insert({
      sessionId: session.id,
      accountId: session.account_id,
      mode: session.mode,
      tokenHash,
      bindingHash: sha256(secret),
      csrfToken: randomToken(),
      config,
      state: initialState(),
      status: 'active',
      locale,
      version: 0,
    });
    this.confirmedForNextView.add(session.id, asked);
    return { kind: 'redirect', sessionId: session.id, bindingSecret: secret };
  }

  /**
   * The version of the stored flow, for a waiting page that asks whether anything changed (a reading or
   * a verdict arrived) instead of reloading itself on a timer; null for an unknown session or another
   * browser, which learn nothing here.
   */
  async version(sessionId: string, bindingSecret: string | undefined): Promise<number | null> {
    const record = await this.options.store.find(sessionId);
    if (!record || !sameSecret(bindingSecret, record.bindingHash)) return null;
    return record.version;
  }

  /** `handoverToken`: the hand-over token this browser was last shown (a camera page shows it again while alive). */
  async show(sessionId: string, bindingSecret: string | undefined, locale: Locale, handoverToken?: string): Promise<ShowResult> {
    const record = await this.options.store.find(sessionId);
    if (!record) return { kind: 'status', page: 'not_found', testMode: false };
    if (!sameSecret(bindingSecret, record.bindingHash)) {
      return { kind: 'status', page: notBoundPage(record, bindingSecret), testMode: false };
    }
    const testMode = record.mode === 'test';
    if (record.status !== 'active') return verdictPage(record, record.status);
    const at = position(record.config, record.state);
    if (at.kind === 'finished') {
      // The verdict is stored but the sessions service has not taken it yet (a failure right after
      // the store): deliver it now rather than leave the session hanging.
      return this.submissionsOfFlow.run(sessionId, () => this.deliverStored(sessionId));
    }
    if (!this.confirmedForNextView.take(sessionId)) {
      const session = await this.options.sessions.get(sessionId);
      const ended = session ? STATUS_PAGE_OF[session.status] : 'not_found';
      // A verdict is usually this flow's own, delivered by a background job (a document read, a face
      // judged) after the record above was read: the stored flow, read again, names it.
      if (ended === 'finished') return this.submissionsOfFlow.run(sessionId, () => this.deliverStored(sessionId));
      if (ended) return { kind: 'status', page: ended, testMode, sessionId };
    }
    const page = await this.render(record, locale, {});
    await this.offerHandover(record, page, handoverToken);
    return page;
  }

  /**
   * A camera page offers to continue on another device: the token its browser was shown while that
   * one is alive, else a new one, stored (over the version read, like any change) before the page
   * shows it. A page whose offer could not be stored (the flow kept changing) goes without it.
   */
  private async offerHandover(record: FlowRecord, page: ShowResult | SubmitResult, presented: string | undefined) {
    if (page.kind !== 'flow' || !page.view.offersHandover) return;
    const validityMs = HANDOVER_VALIDITY_MS * this.options.timeScale;
    let current: FlowRecord | null = record;
    for (let attempt = 1; attempt <= HANDOVER_OFFER_ATTEMPTS && current; attempt++) {
      const offer = offerHandover(current.state, presented, this.now().getTime(), validityMs);
      if (!offer.issued || (await this.options.store.update(current))) {
        page.handover = offer;
        return;
      }
      current = await this.options.store.find(record.sessionId);
      // Handed over or resolved meanwhile: this page's browser gets nothing to hand over.
      if (current && (current.status !== 'active' || current.bindingHash !== record.bindingHash)) return;
    }
  }

  /**
   * Opens a hand-over URL on another device: while its token is alive and unused, the flow is bound to
   * this browser instead (a fresh binding secret and CSRF token) and the token is spent, in one
   * versioned write, so of devices racing with one token exactly one gets the flow. The session's
   * status and timers are not touched: the redirect's page view reports like any view.
   */
  async handOver(sessionId: string, token: string): Promise<HandOverResult> {
    return this.submissionsOfFlow.run(sessionId, async () => {
      for (let attempt = 1; attempt <= SUBMISSION_ATTEMPTS; attempt++) {
        const record = await this.options.store.find(sessionId);
        if (!record) return { kind: 'status', page: 'handover_invalid' };
        if (record.status !== 'active') return { kind: 'status', page: 'finished' };
        if (!takeHandover(record.state, token, this.now().getTime(), record.bindingHash)) {
          return { kind: 'status', page: 'handover_invalid' };
        }
        const secret = randomToken();
        record.bindingHash = sha256(secret);
        record.csrfToken = randomToken();
        if (await this.options.store.rebind(record)) return { kind: 'moved', sessionId, bindingSecret: secret };
      }
      throw new Error(`the flow ${sessionId} kept changing while it was handed over`);
    });
  }

  /**
   * Whether a submission's body may be read at all: only a browser holding this flow's binding may
   * upload, and only under the page's CSRF token (checked on the body's first field, before any file).
   * The submission itself checks both again on the flow as stored.
   */
  async admitSubmission(sessionId: string, bindingSecret: string | undefined): Promise<SubmissionAdmission> {
    const record = await this.options.store.find(sessionId);
    if (!record) return { kind: 'status', page: 'not_found', testMode: false };
    if (!sameSecret(bindingSecret, record.bindingHash)) {
      return { kind: 'status', page: notBoundPage(record, bindingSecret), testMode: false };
    }
    const { csrfToken } = record;
    return { kind: 'admitted', acceptsCsrf: (presented) => sameToken(presented, csrfToken) };
  }

  /**
   * Applies one submission. It is decided on the flow as stored and takes effect only if stored over
   * that version: submissions of one flow on this replica are queued, and one that still lost a race
   * (another replica) is run again on the newer flow. Nothing leaves the flow before its decision is
   * stored: a code is sent after its send is counted, the session is resolved after the verdict is.
   */
  async submit(
    sessionId: string,
    bindingSecret: string | undefined,
    input: Record<string, string>,
    locale: Locale,
    files: SubmittedFiles = {},
    handoverToken?: string,
  ): Promise<SubmitResult> {
    return this.submissionsOfFlow.run(sessionId, async () => {
      for (let attempt = 1; attempt <= SUBMISSION_ATTEMPTS; attempt++) {
        const record = await this.options.store.find(sessionId);
        if (!record) return { kind: 'status', page: 'not_found', testMode: false };
        if (!sameSecret(bindingSecret, record.bindingHash)) {
          return { kind: 'status', page: notBoundPage(record, bindingSecret), testMode: false };
        }
        const testMode = record.mode === 'test';
        if (!sameToken(input._csrf, record.csrfToken)) return { kind: 'status', page: 'csrf', testMode, sessionId };
        if (record.status !== 'active') return { kind: 'redirect', sessionId };
        try {
          const asked = this.now();
          const result = await this.apply(record, input, locale, files);
          // Every redirect of apply() follows the sessions service's confirmation, asked for at `asked`.
          if (result.kind === 'redirect') this.confirmedForNextView.add(sessionId, asked);
          await this.offerHandover(record, result, handoverToken);
          return result;
        } catch (error) {
          if (!(error instanceof ConcurrentSubmission)) throw error;
        }
      }
      // Still racing after every attempt: nothing of this submission was stored; the page shows
      // wherever the flow is now.
      return { kind: 'redirect', sessionId };
    });
  }

  private async apply(
    record: FlowRecord,
    input: Record<string, string>,
    locale: Locale,
    files: SubmittedFiles,
  ): Promise<SubmitResult> {
    const { sessionId } = record;
    // Every submission is activity (it puts off abandonment), and a session that ended meanwhile
    // shows why, never the flow.
    if ((await this.options.sessions.activity(sessionId)) === 'terminal') return this.endedPage(record);
    const staged: StagedCapture[] = [];
    const persist = this.persister(record, staged);

    const at = position(record.config, record.state);
    if (at.kind === 'finished') return this.deliver(record, at.outcome);
    // A stale page (back button, double submit) posts for another step: show the current one instead.
    if (input.step !== at.step.id) return { kind: 'redirect', sessionId };
    if (at.kind === 'choice') {
      if (input.option) chooseOption(record.state, at.step, input.option);
      await persist();
      return { kind: 'redirect', sessionId };
    }
    // A document waiting on the registry stays the current step until the registry decides it.
    if (at.choice && input.action === 'leave_option' && !registryPending(record.state.steps[at.step.id])) {
      leaveOption(record.state, at.choice);
      await persist();
      return { kind: 'redirect', sessionId };
    }

    const stepState = (record.state.steps[at.step.id] ??= { status: 'pending' });
    const ctx = this.context(record, at.step, locale, stepState, persist, staged, files);
    const outcome: StepOutcome = await moduleFor(at.step).accept(ctx, input);
    applyOutcome(record.state, at.step, at.choice, outcome);
    // The decision is stored first: a submission that lost the race resolves nothing.
    await persist();
    const next = position(record.config, record.state);
    if (next.kind === 'finished') return this.deliver(record, next.outcome);
    if (outcome.kind === 'stay' && outcome.feedback && Object.keys(outcome.feedback).length > 0) {
      return this.render(record, locale, outcome.feedback);
    }
    return { kind: 'redirect', sessionId };
  }

  /**
   * Stores the flow only when it changed, over the version it was read at (with the captures the
   * submission staged, in one transaction); a lost race throws `ConcurrentSubmission`.
   */
  private persister(record: FlowRecord, staged: StagedCapture[]): () => Promise<void> {
    const snapshot = () => `${record.status} ${JSON.stringify(record.state)}`;
    let stored = snapshot();
    return async () => {
      const current = snapshot();
      if (current === stored && staged.length === 0) return;
      if (!(await this.options.store.update(record, staged))) throw new ConcurrentSubmission();
      staged.length = 0;
      stored = current;
    };
  }

  /**
   * What the verification workers read from a capture reaches its flow: decided on the flow as
   * stored, like a submission (queued behind the flow's submissions, run again if it lost a race).
   * A reading of a capture that was replaced meanwhile changes nothing.
   */
  async applyReading(sessionId: string, stepId: string, artefactId: string, verdict: CaptureVerdict): Promise<void> {
    await this.submissionsOfFlow.run(sessionId, async () => {
      for (let attempt = 1; attempt <= SUBMISSION_ATTEMPTS; attempt++) {
        const record = await this.options.store.find(sessionId);
        if (!record || record.status !== 'active') return;
        try {
          await this.applyReadingTo(record, stepId, artefactId, verdict);
          return;
        } catch (error) {
          if (!(error instanceof ConcurrentSubmission)) throw error;
        }
      }
      throw new Error(`the flow ${sessionId} kept changing while a reading was applied`);
    });
  }

  private async applyReadingTo(record: FlowRecord, stepId: string, artefactId: string, verdict: CaptureVerdict) {
    const at = position(record.config, record.state);
    const step = at.kind === 'step' && at.step.id === stepId && at.step.type === 'document_ar' ? at.step : null;
    const state = record.state.steps[stepId];
    if (!step || !state) return;
    const side = sideBeingRead(state.document, artefactId);
    if (side === null) return;
    const problems = await this.problemsOfSide(step, state.document!, side, artefactId, verdict);
    const persist = this.persister(record, []);
    let outcome = applyCaptureReading(step, state, artefactId, problems);
    if (outcome.kind === 'stale') return;
    if (outcome.kind === 'complete') {
      const verdict = await this.options.captures.decideDocument({
        progress: state.document!,
        acceptedTypes: step.documents,
        registryCheck: step.registryCheck,
        sessionId: record.sessionId,
        mode: record.mode,
      });
      state.document!.checks = verdict.checks;
      if (verdict.kind === 'passed' && step.registryCheck) {
        await this.scheduleRegistryCheck(record, step.id, verdict.document, verdict.registry);
        return;
      }
      outcome = verdict.kind === 'passed' ? { kind: 'passed', document: verdict.document } : verdict;
    }
    applyOutcome(record.state, step, at.kind === 'step' ? at.choice : null, outcome);
    await persist();
    const next = position(record.config, record.state);
    if (next.kind === 'finished') await this.deliver(record, next.outcome);
  }

  /**
   * A side's problems for the step: a side of another type than the chosen one is told so first; a side
   * after the front is compared with the accepted front (after a screen, which is told first whatever
   * it shows); otherwise what the side itself showed.
   */
  private async problemsOfSide(
    step: Parameters<typeof applyCaptureReading>[0],
    progress: DocumentProgress,
    side: CaptureKind,
    artefactId: string,
    verdict: CaptureVerdict,
  ): Promise<readonly CaptureProblem[]> {
    const ofType = problemOfType(step, progress, verdict.detectedType);
    if (ofType !== null) return [ofType, ...verdict.problems.filter((problem) => problem !== 'wrong_type' && problem !== ofType)];
    const front = progress.captures.front;
    if ((side !== 'back' && side !== 'front_angle') || front?.status !== 'accepted') return verdict.problems;
    const against = await this.options.captures.againstFront({ front: front.artefactId, capture: artefactId, side });
    if (against.length === 0) return verdict.problems;
    const screen = verdict.problems.filter((problem) => problem === 'screen');
    return [...screen, ...against, ...verdict.problems.filter((problem) => problem !== 'screen' && !against.includes(problem))];
  }

  /**
   * The face worker's judgement of an attempt reaches its flow, decided on the flow as stored like a
   * reading. A judgement of frames that are no longer the ones awaited changes nothing.
   */
  async applyFaceJudgement(sessionId: string, stepId: string, artefactId: string, judgement: FaceJudgement): Promise<void> {
    await this.submissionsOfFlow.run(sessionId, async () => {
      for (let attempt = 1; attempt <= SUBMISSION_ATTEMPTS; attempt++) {
        const record = await this.options.store.find(sessionId);
        if (!record || record.status !== 'active') return;
        const at = position(record.config, record.state);
        const step = at.kind === 'step' && at.step.id === stepId && at.step.type === 'face_liveness' ? at.step : null;
        const state = record.state.steps[stepId];
        if (!step || !state || at.kind !== 'step') return;
        // Taken before the change: the verdict must be stored before the session is resolved.
        const persist = this.persister(record, []);
        const outcome = applyFaceJudgement(step, state, artefactId, judgement);
        if (outcome.kind === 'stale') return;
        applyOutcome(record.state, step, at.choice, outcome);
        try {
          await persist();
        } catch (error) {
          if (error instanceof ConcurrentSubmission) continue;
          throw error;
        }
        const next = position(record.config, record.state);
        if (next.kind === 'finished') await this.deliver(record, next.outcome);
        return;
      }
      throw new Error(`the flow ${sessionId} kept changing while a face judgement was applied`);
    });
  }

  /**
   * The document passed its own checks and waits on the registry: the query is kept with the step and
   * the check is scheduled in the same transaction, so a check is never lost and never scheduled twice
   * (a second delivery of the reading finds the capture accepted and changes nothing). A document the
   * registry cannot be asked about (a field it needs was not read) is rejected as unreadable.
   */
  private async scheduleRegistryCheck(
    record: FlowRecord,
    stepId: string,
    document: DocumentData,
    query: RegistryQuery | null,
  ): Promise<void> {
    const state = record.state.steps[stepId]!;
    const at = position(record.config, record.state);
    if (at.kind !== 'step') return;
    if (!query) {
      applyOutcome(record.state, at.step, at.choice, { kind: 'failed', reason: REASON_CODES.documentUnreadable });
      await this.persister(record, [])();
      const next = position(record.config, record.state);
      if (next.kind === 'finished') await this.deliver(record, next.outcome);
      return;
    }
    state.document!.registry = { status: 'pending', query, document };
    const window = this.options.registryRetryWindowMs ?? 24 * 3_600_000 * this.options.timeScale;
    const schedule: RegistryCheckChange = {
      kind: 'schedule',
      stepId,
      checkId: `rgc_${fastUlid()}`,
      giveUpAt: new Date(this.now().getTime() + window),
    };
    if (!(await this.options.store.update(record, [], schedule))) throw new ConcurrentSubmission();
    // The hold starts with the check, not with the runner's first attempt: a runner that is busy or
    // restarting must not leave the session to be abandoned meanwhile. A hold that fails here is placed
    // again before every attempt.
    await this.options.sessions
      .hold(record.sessionId, registryHoldUntil(schedule.giveUpAt, this.options.timeScale))
      .catch(() => undefined);
    this.options.onRegistryCheckScheduled?.();
  }

  /** What a registry check of this flow should do now, from the flow as stored. */
  async registryCheckState(sessionId: string, stepId: string): Promise<RegistryCheckState> {
    const record = await this.options.store.find(sessionId);
    if (!record || record.status !== 'active') return { kind: 'gone' };
    const registry = record.state.steps[stepId]?.document?.registry;
    if (!registry) return { kind: 'gone' };
    if (registry.status === 'pending') return { kind: 'ask', query: registry.query, mode: record.mode };
    return { kind: 'decided' };
  }

  /**
   * The registry's answer reaches the flow, decided on the flow as stored and queued behind its
   * submissions like a reading. A definite answer, or an unavailable one with no retry left, decides
   * the step once (the decision and the check's new status are one transaction); an unavailable one
   * with time left changes nothing (`retry`). A check already decided stays as it was.
   */
  async applyRegistryAnswer(
    sessionId: string,
    stepId: string,
    answer: RegistryAnswer,
    attempts: number,
    retryLeft: boolean,
  ): Promise<'retry' | 'decided' | 'gone'> {
    return this.submissionsOfFlow.run(sessionId, async () => {
      for (let attempt = 1; attempt <= SUBMISSION_ATTEMPTS; attempt++) {
        const record = await this.options.store.find(sessionId);
        if (!record || record.status !== 'active') return 'gone';
        const state = record.state.steps[stepId];
        const registry = state?.document?.registry;
        if (!state || !registry) return 'gone';
        if (registry.status !== 'pending') return 'decided';
        if (answer.kind === 'unavailable' && retryLeft) return 'retry';
        const at = position(record.config, record.state);
        if (at.kind !== 'step' || at.step.id !== stepId) return 'gone';
        registry.status = answer.kind;
        if (answer.kind === 'mismatch') registry.fields = answer.fields;
        const reason =
          answer.kind === 'match'
            ? undefined
            : answer.kind === 'unavailable'
              ? REASON_CODES.documentRegistryUnavailable
              : REASON_CODES.documentRegistryMismatch;
        state.document!.checks = [
          ...(state.document!.checks ?? []),
          {
            name: 'registry',
            verdict: reason ? (answer.kind === 'unavailable' ? 'inconclusive' : 'failed') : 'passed',
            ...(reason ? { reason } : {}),
            ...(answer.kind === 'mismatch' && answer.fields.length > 0 ? { fields: [...answer.fields] } : {}),
          },
        ];
        const outcome: StepOutcome = reason ? { kind: 'failed', reason } : { kind: 'passed', document: registry.document };
        applyOutcome(record.state, at.step, at.choice, outcome);
        const decided: RegistryCheckChange = { kind: 'decide', stepId, attempts, outcome: answer.kind };
        if (await this.options.store.update(record, [], decided)) return 'decided';
      }
      throw new Error(`the flow ${sessionId} kept changing while a registry answer was applied`);
    });
  }

  /**
   * After a registry decision: a finished flow's verdict goes to the sessions service; a flow that
   * goes on releases its hold on abandonment (the person has the next step to do). Throws when the
   * sessions service cannot be told; the runner comes back to it.
   */
  async settleRegistryCheck(sessionId: string): Promise<void> {
    await this.submissionsOfFlow.run(sessionId, async () => {
      const record = await this.options.store.find(sessionId);
      if (!record || record.status !== 'active') return;
      const at = position(record.config, record.state);
      if (at.kind === 'finished') {
        await this.deliver(record, at.outcome);
        return;
      }
      if (at.kind === 'step' && registryPending(record.state.steps[at.step.id])) return;
      await this.options.sessions.hold(sessionId, null);
    });
  }

  /**
   * Hands a stored verdict to the sessions service, then marks the flow resolved. Runs again on the
   * next view or submission if anything fails in between; the sessions service takes a verdict once.
   */
  private async deliver(record: FlowRecord, outcome: 'approved' | 'rejected'): Promise<ShowResult | SubmitResult> {
    const { sessionId } = record;
    const result = await this.options.sessions.resolve(sessionId, resolution(record.config, record.state, outcome));
    if (result === 'terminal') return this.endedPage(record);
    record.status = outcome;
    await this.storeResolved(record);
    this.options.onResolved?.(outcome);
    return { kind: 'redirect', sessionId };
  }

  /** The resolved status is derived from a stored verdict: a lost race here changes nothing. */
  private async storeResolved(record: FlowRecord): Promise<void> {
    await this.options.store.update(record);
  }

  private async deliverStored(sessionId: string): Promise<ShowResult> {
    const record = await this.options.store.find(sessionId);
    if (!record) return { kind: 'status', page: 'not_found', testMode: false };
    const testMode = record.mode === 'test';
    const at = position(record.config, record.state);
    if (record.status !== 'active') return verdictPage(record, record.status);
    if (at.kind !== 'finished') return { kind: 'status', page: 'finished', testMode, sessionId };
    const delivered = await this.deliver(record, at.outcome);
    return delivered.kind === 'redirect' ? verdictPage(record, at.outcome) : delivered;
  }

  /**
   * The session ended outside this submission. When it ended with this flow's own stored verdict (an
   * earlier delivery whose answer was lost), the flow takes that status too.
   */
  private async endedPage(record: FlowRecord): Promise<ShowResult> {
    const session = await this.options.sessions.get(record.sessionId);
    const at = position(record.config, record.state);
    const testMode = record.mode === 'test';
    if (session && at.kind === 'finished' && session.status === at.outcome && record.status === 'active') {
      record.status = at.outcome;
      await this.storeResolved(record);
      return verdictPage(record, at.outcome);
    }
    const page = (session && STATUS_PAGE_OF[session.status]) ?? 'finished';
    return { kind: 'status', page, testMode, sessionId: record.sessionId };
  }

  private context(
    record: FlowRecord,
    step: StepContext['step'],
    locale: Locale,
    state: StepContext['state'],
    checkpoint: () => Promise<void>,
    staged: StagedCapture[] = [],
    files: SubmittedFiles = {},
  ): StepContext {
    const csrf = record.csrfToken;
    const { captures } = this.options;
    return {
      sessionId: record.sessionId,
      step,
      config: record.config,
      retentionDays: this.options.retentionDays ?? DEFAULT_RETENTION_DAYS,
      mode: record.mode,
      locale,
      t: messages(locale),
      now: this.now(),
      timeScale: this.options.timeScale,
      state,
      ...(files.capture ? { upload: files.capture } : {}),
      ...(files.frames ? { frames: files.frames } : {}),
      samples: (type, side) => captures.samples(type, side, locale),
      faceSamples: () => captures.faceSamples(locale),
      documentFront: () => documentFrontBefore(record, step.id),
      ports: {
        checkpoint,
        sendCode: (channel, destination, code, lang) => this.options.sender.send(channel, destination, code, lang),
        prepareCapture: (bytes) => captures.prepare(bytes),
        isTestSample: (images) => captures.isTestSample(images),
        sampleImage: (type, side, sampleId) => captures.sampleImage(type, side, sampleId),
        stageCapture: (kind, jpeg, document) => {
          const artefactId = newArtefactId();
          staged.push({ artefactId, sessionId: record.sessionId, stepId: step.id, kind, jpeg, document });
          return artefactId;
        },
        prepareFrame: (bytes) => captures.prepareFrame(bytes),
        faceSample: (sampleId, challenge, now) => captures.faceSample(sampleId, challenge, now),
        stageFaceFrames: (set) => {
          const artefactId = newArtefactId();
          staged.push({
            artefactId,
            sessionId: record.sessionId,
            stepId: step.id,
            kind: 'face_frames',
            bytes: encodeFaceFrames(set),
            contentType: FACE_FRAMES_CONTENT_TYPE,
          });
          return artefactId;
        },
      },
      form: (inner: SafeHtml, options?: { novalidate?: boolean; multipart?: boolean }) =>
        flowForm(record.sessionId, csrf, step.id, inner, options),
    };
  }

  private async render(record: FlowRecord, locale: Locale, feedback: FormFeedback): Promise<ShowResult> {
    const at = position(record.config, record.state);
    const testMode = record.mode === 'test';
    if (at.kind === 'finished') return verdictPage(record, at.outcome);
    const base = {
      kind: 'flow' as const,
      sessionId: record.sessionId,
      testMode,
      testCode: testMode && hasCodeStep(record.config),
      csrfToken: record.csrfToken,
      progress: { index: at.index + 1, total: at.total },
      hasErrors: Object.keys(feedback.errors ?? {}).length > 0,
      version: record.version,
    };
    if (at.kind === 'choice') {
      const view = renderChoice(at.step, record.state, messages(locale), (inner) =>
        flowForm(record.sessionId, record.csrfToken, at.step.id, inner),
      );
      return { ...base, stepId: at.step.id, view, canLeaveOption: false };
    }
    const stepState = record.state.steps[at.step.id] ?? { status: 'pending' as const };
    const ctx = this.context(record, at.step, locale, { ...stepState }, readOnly);
    const view = await moduleFor(at.step).render(ctx, feedback);
    return { ...base, stepId: at.step.id, view, canLeaveOption: at.choice !== null };
  }
}

const readOnly = (): Promise<void> => Promise.reject(new Error('a page view does not store the flow'));

/**
 * The accepted front of the last passed `document_ar` step before `stepId` (top-level steps, and the
 * options of choices, in order): its portrait is what a face step compares with. Null when none passed.
 */
export function documentFrontBefore(record: Pick<FlowRecord, 'config' | 'state'>, stepId: string): string | null {
  let front: string | null = null;
  const consider = (step: { id: string; type: string }) => {
    const state = record.state.steps[step.id];
    const capture = state?.document?.captures.front;
    if (step.type === 'document_ar' && state?.status === 'passed' && capture?.status === 'accepted') front = capture.artefactId;
  };
  for (const step of record.config.steps) {
    if (step.id === stepId) return front;
    if (step.type === 'choice') {
      if (step.options.some((option) => option.id === stepId)) return front;
      step.options.forEach(consider);
    } else consider(step);
  }
  return front;
}

const hasCodeStep = (config: FlowConfig) =>
  config.steps
    .flatMap((step) => (step.type === 'choice' ? step.options : [step]))
    .some((step) => step.type === 'otp_email' || step.type === 'otp_whatsapp');

/** A POST form to the flow with the CSRF token and the step id it was drawn for. */
export function flowForm(
  sessionId: string,
  csrfToken: string,
  stepId: string,
  inner: SafeHtml,
  options: { novalidate?: boolean; multipart?: boolean } = {},
): SafeHtml {
  const attributes = `${options.multipart ? ' enctype="multipart/form-data"' : ''}${options.novalidate ? ' novalidate' : ''}`;
  return html`<form method="post" action="/s/${sessionId}" ${raw(attributes)}>
    <input type="hidden" name="_csrf" value="${csrfToken}" /><input type="hidden" name="step" value="${stepId}" /> ${inner}
  </form>`;
}
