import { newArtefactId, type InternalSession, type SessionId } from '@idv/contracts';
import { hasCodeStep, documentFrontBefore, position, resolution } from '../domain/engine';
import { encodeFaceFrames, FACE_FRAMES_CONTENT_TYPE } from '../domain/face-frames';
import { movedAwayFrom, offerHandover, HANDOVER_VALIDITY_MS } from '../domain/handover';
import { messages, type Locale } from '../domain/i18n';
import { KeyedSerializer } from '../domain/keyed-serializer';
import type { ShowResult, StatusPage, SubmitResult } from '../domain/pages';
import type {
  ArtefactStore,
  CodeSender,
  FlowRecord,
  FlowStore,
  SessionsPort,
  StagedCapture,
  SubmittedFiles,
  UploadPorts,
} from '../domain/ports';
import { moduleFor, ConcurrentSubmission, type StepContext } from '../domain/steps';
import { renderChoice } from '../domain/steps/choice';
import type { FormFeedback } from '../domain/view';

/**
 * What every use case of the person's flow shares: the ports, the clock, the queue of a flow's changes
 * on this replica, and the steps that end a change (store it over its version, hand a verdict to the
 * sessions service, draw the page the flow is at). The use cases themselves are the modules beside this one.
 */

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

  add(sessionId: SessionId, confirmedAt: Date): void {
    const now = this.clock();
    this.confirmedAt.delete(sessionId); // re-inserted last: the map stays (about) in order of confirmation
    this.confirmedAt.set(sessionId, confirmedAt.getTime());
    for (const [id, at] of this.confirmedAt) {
      if (now - at <= STATUS_FRESH_MS) break;
      this.confirmedAt.delete(id); // a redirect nobody followed
    }
  }

  /** True once per confirmation, if it is recent enough. */
  take(sessionId: SessionId): boolean {
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
export const SUBMISSION_ATTEMPTS = 10;

/** The page of a stored verdict: a rejection carries its reasons (what went wrong, told in the person's words). */
export const verdictPage = (record: FlowRecord, outcome: 'approved' | 'rejected'): ShowResult => ({
  kind: 'status',
  page: outcome,
  testMode: record.mode === 'test',
  sessionId: record.sessionId,
  ...(outcome === 'rejected' ? { reasons: [...new Set(record.state.reasons)] } : {}),
});

/** Why a browser without this flow's binding cannot see it: it handed the flow over, or never had it. */
export const notBoundPage = (record: FlowRecord, presented: string | undefined): StatusPage =>
  movedAwayFrom(record.state, presented) ? 'moved' : 'used';

/** A page view that cannot store its hand-over offer after this many lost races goes without it. */
const HANDOVER_OFFER_ATTEMPTS = 3;

export const STATUS_PAGE_OF: Partial<Record<InternalSession['status'], StatusPage>> = {
  expired: 'expired',
  abandoned: 'abandoned',
  canceled: 'canceled',
  approved: 'finished',
  rejected: 'finished',
};

/** ARTEFACT_RETENTION_DAYS's default, for a service built without it. */
const DEFAULT_RETENTION_DAYS = 30;

export interface FlowDeps {
  store: FlowStore;
  /** Days captures and their readings are kept (ARTEFACT_RETENTION_DAYS), as the consent tells the person. */
  retentionDays?: number;
  sessions: SessionsPort;
  sender: CodeSender;
  /** Checking uploads and face frames, and the test-mode samples. */
  uploads: UploadPorts;
  /** The readings stored beside the captures: the document's decision is taken over them. */
  readings: Pick<ArtefactStore, 'reading'>;
  timeScale: number;
  now?: () => Date;
  onResolved?: (outcome: 'approved' | 'rejected') => void;
  /** How long a registry that does not answer is asked again (already scaled by TIME_SCALE). */
  registryRetryWindowMs?: number;
  /** A registry check was stored: the runner may start on it now rather than at its next poll. */
  onRegistryCheckScheduled?: () => void;
}

/** The shared machinery of the flow's use cases (one per process). */
export class FlowCore {
  readonly now: () => Date;
  readonly confirmedForNextView: ConfirmedForNextView;
  /** Changes of one flow on this replica run one at a time (a submission, a reading, a judgement, an answer). */
  readonly submissionsOfFlow = new KeyedSerializer();

  constructor(readonly options: FlowDeps) {
    this.now = options.now ?? (() => new Date());
    this.confirmedForNextView = new ConfirmedForNextView(() => this.now().getTime());
  }

  /**
   * A camera page offers to continue on another device: the token its browser was shown while that
   * one is alive, else a new one, stored (over the version read, like any change) before the page
   * shows it. A page whose offer could not be stored (the flow kept changing) goes without it.
   */
  async offerHandover(record: FlowRecord, page: ShowResult | SubmitResult, presented: string | undefined) {
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
   * Stores the flow only when it changed, over the version it was read at (with the captures the
   * submission staged, in one transaction); a lost race throws `ConcurrentSubmission`.
   */
  persister(record: FlowRecord, staged: StagedCapture[]): () => Promise<void> {
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
   * Hands a stored verdict to the sessions service, then marks the flow resolved. Runs again on the
   * next view or submission if anything fails in between; the sessions service takes a verdict once.
   */
  async deliver(record: FlowRecord, outcome: 'approved' | 'rejected'): Promise<ShowResult | SubmitResult> {
    const { sessionId } = record;
    const result = await this.options.sessions.resolve(sessionId, resolution(record.config, record.state, outcome));
    if (result === 'terminal') return this.endedPage(record);
    record.status = outcome;
    await this.storeResolved(record);
    this.options.onResolved?.(outcome);
    return { kind: 'redirect', sessionId };
  }

  /** The resolved status is derived from a stored verdict: a lost race here changes nothing. */
  async storeResolved(record: FlowRecord): Promise<void> {
    await this.options.store.update(record);
  }

  async deliverStored(sessionId: SessionId): Promise<ShowResult> {
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
  async endedPage(record: FlowRecord): Promise<ShowResult> {
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

  context(
    record: FlowRecord,
    step: StepContext['step'],
    locale: Locale,
    state: StepContext['state'],
    checkpoint: () => Promise<void>,
    staged: StagedCapture[] = [],
    files: SubmittedFiles = {},
  ): StepContext {
    const { uploads: captures } = this.options;
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
    };
  }

  async render(record: FlowRecord, locale: Locale, feedback: FormFeedback): Promise<ShowResult> {
    const at = position(record.config, record.state);
    const testMode = record.mode === 'test';
    if (at.kind === 'finished') return verdictPage(record, at.outcome);
    const base = {
      kind: 'flow' as const,
      sessionId: record.sessionId,
      testMode,
      testCode: testMode && hasCodeStep(record.config),
      tryRun: record.isTry,
      csrfToken: record.csrfToken,
      progress: { index: at.index + 1, total: at.total },
      hasErrors: Object.keys(feedback.errors ?? {}).length > 0,
      version: record.version,
    };
    if (at.kind === 'choice') {
      const view = renderChoice(at.step, record.state, messages(locale));
      return { ...base, stepId: at.step.id, view, canLeaveOption: false };
    }
    const stepState = record.state.steps[at.step.id] ?? { status: 'pending' as const };
    const ctx = this.context(record, at.step, locale, { ...stepState }, readOnly);
    const view = await moduleFor(at.step).render(ctx, feedback);
    return { ...base, stepId: at.step.id, view, canLeaveOption: at.choice !== null };
  }
}

const readOnly = (): Promise<void> => Promise.reject(new Error('a page view does not store the flow'));
