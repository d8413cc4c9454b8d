import type { ArtefactId, DocumentStepSchema } from '@idv/contracts';
import type { z } from 'zod';
import { REASON_CODES, type ReasonCode } from '../reason-codes';
import type { StepModule, StepOutcome, StepState } from './types';
import type {
  CaptureKind,
  CaptureProblem,
  CaptureState,
  CaptureVerdict,
  DocumentKind,
  DocumentProgress,
  DocumentSide,
} from './document-state';

type DocumentStep = z.infer<typeof DocumentStepSchema>;

export const registryPending = (state: StepState | undefined): boolean => state?.document?.registry?.status === 'pending';

/** The sides each document type needs, in the order they are asked for. */
export const SIDES_OF: Record<DocumentKind, readonly DocumentSide[]> = {
  dni: ['front', 'back', 'front_angle'],
  passport: ['front', 'front_angle'],
  licence: ['front', 'back', 'front_angle'],
};

const progressOf = (state: StepState): DocumentProgress => (state.document ??= { captures: {} });

export function documentTypeOf(step: DocumentStep, progress: DocumentProgress): DocumentKind | null {
  if (progress.type) return progress.type;
  const offered = offeredDocuments(step);
  return offered.length === 1 ? offered[0]! : null;
}

/**
 * The document types the person is offered. No driver licence can be verified yet (its barcode layout
 * is not public: docs/api.md, docs/documents.md), so a licence is offered only when the step allows nothing
 * else: a person who picked it among others could only fail after every attempt, with no way back to
 * the choice. The step's configuration is unchanged; a licence sent anyway is still read.
 */
export function offeredDocuments(step: DocumentStep): DocumentKind[] {
  const verifiable = step.documents.filter((kind) => kind !== 'licence');
  return verifiable.length > 0 ? verifiable : [...step.documents];
}

/** The side to capture now: the first one not accepted yet (null: every side is in). */
export function currentSide(step: DocumentStep, progress: DocumentProgress): DocumentSide | null {
  const type = documentTypeOf(step, progress);
  if (!type) return null;
  return SIDES_OF[type].find((side) => progress.captures[side]?.status !== 'accepted') ?? null;
}

/** The reason a side's last refusal gives the step when its attempts run out. */
export function reasonOfProblem(problem: CaptureProblem | undefined): ReasonCode {
  if (problem === 'screen') return REASON_CODES.documentScreenDetected;
  if (problem === 'not_tilted') return REASON_CODES.documentAngleMismatch;
  if (problem === 'other_document') return REASON_CODES.documentDataMismatch;
  return problem === 'wrong_type' || problem === 'other_side' || problem?.startsWith('looks_like_') === true
    ? REASON_CODES.documentTypeMismatch
    : REASON_CODES.documentUnreadable;
}

/**
 * A person may change the document type this many times: each change starts the sides again, so the
 * attempts a step allows stay bounded.
 */
export const MAX_TYPE_CHANGES = 2;

/** Whether the person may still change the type: several are offered and changes are left. */
export function canChangeType(step: DocumentStep, progress: DocumentProgress): boolean {
  return offeredDocuments(step).length > 1 && (progress.typeChanges ?? 0) < MAX_TYPE_CHANGES;
}

/**
 * A side of another type than the one the step stands for: one the person may switch to (another type
 * offered, changes left) is told as such, anything else is the wrong document. Null when the type is
 * the chosen one, or unknown.
 */
export function problemOfType(
  step: DocumentStep,
  progress: DocumentProgress,
  detected: CaptureVerdict['detectedType'],
): CaptureProblem | null {
  const chosen = documentTypeOf(step, progress);
  if (detected === null || chosen === null || detected === chosen) return null;
  if (detected !== 'unsupported' && offeredDocuments(step).includes(detected) && canChangeType(step, progress)) {
    return `looks_like_${detected}`;
  }
  return 'wrong_type';
}

/** The side a capture was sent for, while it is being read (null: replaced or already decided). */
export function sideBeingRead(progress: DocumentProgress | undefined, artefactId: ArtefactId): DocumentSide | null {
  const entry = Object.entries(progress?.captures ?? {}).find(([, capture]) => capture?.artefactId === artefactId);
  return entry && entry[1]?.status === 'reading' ? (entry[0] as DocumentSide) : null;
}

/**
 * What the person is told of a refused photo, for the document they chose: a passport has no barcode,
 * so a passport photo whose reading missed one (nothing read, or a zone to take again) misses its zone.
 */
function hintFor(type: DocumentKind | null, problem: CaptureProblem): CaptureProblem {
  return type === 'passport' && problem === 'barcode_not_found' ? 'mrz_not_found' : problem;
}

/**
 * Applies what the readers said of one capture. Stale readings (a newer capture of the side was sent
 * meanwhile) change nothing. Returns the step's outcome: stay (ask for the next side or a retry),
 * failed (the side's attempts ran out), or 'complete' when every side is accepted and the service
 * must decide the document from the stored readings.
 */
export function applyCaptureReading(
  step: DocumentStep,
  state: StepState,
  artefactId: ArtefactId,
  problems: readonly CaptureProblem[],
): StepOutcome | { kind: 'complete' } | { kind: 'stale' } {
  const progress = progressOf(state);
  const entry = Object.entries(progress.captures).find(([, capture]) => capture?.artefactId === artefactId);
  if (!entry || entry[1]?.status !== 'reading') return { kind: 'stale' };
  const [side, capture] = entry as [CaptureKind, CaptureState];
  if (problems.length === 0) {
    progress.captures[side] = { ...capture, status: 'accepted' };
    delete progress.captures[side].problem;
    return currentSide(step, progress) === null ? { kind: 'complete' } : { kind: 'stay' };
  }
  // The type the step stands for: chosen by the person, or the only one offered (never stored then).
  const problem = hintFor(documentTypeOf(step, progress), problems[0]!);
  progress.captures[side] = { ...capture, status: 'refused', problem };
  if (capture.attempts >= step.maxAttempts) return { kind: 'failed', reason: reasonOfProblem(problem) };
  return { kind: 'stay' };
}

/** The type a refused side looked like, when the person may switch to it. */
function typeOfLookalike(capture: CaptureState | undefined): DocumentKind | null {
  if (capture?.status !== 'refused' || !capture.problem?.startsWith('looks_like_')) return null;
  return capture.problem.slice('looks_like_'.length) as DocumentKind;
}

/** The pages and submissions of `document_ar`: choose the type, send each side, wait for the reading. */
export const documentStep: StepModule<DocumentStep> = {
  type: 'document_ar',
  render(ctx, feedback) {
    const t = ctx.t.document;
    const progress = progressOf({ ...ctx.state, document: structuredClone(ctx.state.document) });
    const type = documentTypeOf(ctx.step, progress);
    if (!type) return { title: t.title, body: { kind: 'document_type', offered: offeredDocuments(ctx.step), feedback } };
    if (progress.registry?.status === 'pending') {
      // Not seconds like a reading: the registry may be down for hours, so the page asks less often.
      return { title: t.registryTitle, refreshSeconds: 10, body: { kind: 'waiting', text: t.registryBody, refresh: t.refresh } };
    }
    const side = currentSide(ctx.step, progress);
    const capture = side ? progress.captures[side] : undefined;
    if (!side || capture?.status === 'reading') {
      return {
        title: t.processingTitle,
        refreshSeconds: 2,
        body: { kind: 'waiting', text: t.processingBody, refresh: t.refresh },
      };
    }
    const sideName = type === 'passport' && side === 'front' ? 'data_page' : side;
    const attempts = capture?.attempts ?? 0;
    const told = { ...t.problems, ...ctx.t.documentChecks.problems };
    const problem = capture?.status === 'refused' && capture.problem ? told[capture.problem] : undefined;
    const samples = ctx.mode === 'test' ? ctx.samples(type, side) : [];
    // A side that looks like another offered type: the way to switch to it is beside what was said.
    const lookalike = feedback.alert === undefined ? typeOfLookalike(capture) : null;
    const changeable = canChangeType(ctx.step, progress);
    // Before any side is taken, the person may still go back to the choice of document.
    const untouched = Object.values(progress.captures).every((taken) => taken?.status !== 'accepted');
    return {
      title: t.sideTitles[sideName],
      capture: { side },
      offersHandover: true,
      photo: { index: SIDES_OF[type].indexOf(side) + 1, total: SIDES_OF[type].length },
      body: {
        kind: 'document_side',
        side,
        sideName,
        alert: feedback.alert ?? problem,
        switchTo: lookalike !== null && changeable ? lookalike : null,
        otherType: lookalike === null && changeable && untouched,
        attemptsLeft: attempts > 0 ? ctx.step.maxAttempts - attempts : null,
        samples: samples.length > 0 ? { copy: 'document', hidden: { side }, samples } : null,
      },
    };
  },

  async accept(ctx, input) {
    const t = ctx.t.document;
    const progress = progressOf(ctx.state);
    if (input.action === 'choose_type') {
      const chosen = ctx.step.documents.find((kind) => kind === input.type);
      if (chosen && !documentTypeOf(ctx.step, progress)) progress.type = chosen;
      return { kind: 'stay' };
    }
    if (input.action === 'change_type') {
      // To another offered type at once (the person was told the photo looks like it), or back to the
      // choice; either way the sides start again, and only while changes are left.
      if (!canChangeType(ctx.step, progress) || progress.registry) return { kind: 'stay' };
      const to = offeredDocuments(ctx.step).find((kind) => kind === input.type);
      if (to !== undefined && to === documentTypeOf(ctx.step, progress)) return { kind: 'stay' };
      progress.typeChanges = (progress.typeChanges ?? 0) + 1;
      progress.captures = {};
      if (to === undefined) delete progress.type;
      else progress.type = to;
      return { kind: 'stay' };
    }
    const type = documentTypeOf(ctx.step, progress);
    const side = currentSide(ctx.step, progress);
    if (!type || !side || input.side !== side) return { kind: 'stay' };
    const previous = progress.captures[side];
    if (previous?.status === 'reading') return { kind: 'stay' };

    let bytes: Buffer | null = null;
    if (input.action === 'upload') bytes = ctx.upload ?? null;
    else if (input.action === 'sample' && ctx.mode === 'test')
      bytes = await ctx.ports.sampleImage(type, side, input.sample ?? '');
    else return { kind: 'stay' };
    if (!bytes || bytes.length === 0) return { kind: 'stay', feedback: { alert: t.refusals[bytes ? 'empty' : 'missing'] } };

    const prepared = await ctx.ports.prepareCapture(bytes);
    // A file that is not a readable photo costs no attempt: the person is told what to send instead.
    if (!prepared.ok) return { kind: 'stay', feedback: { alert: t.refusals[prepared.reason] } };
    // The test-mode samples are public: in live mode one of them stands for no one.
    if (ctx.mode === 'live' && (await ctx.ports.isTestSample([prepared.jpeg]))) {
      return { kind: 'failed', reason: REASON_CODES.testSampleDetected };
    }
    const artefactId = ctx.ports.stageCapture(side, prepared.jpeg, { type, acceptedTypes: ctx.step.documents });
    progress.captures[side] = {
      artefactId,
      status: 'reading',
      attempts: (previous?.attempts ?? 0) + 1,
      ...(previous?.settledPrint === undefined ? {} : { settledPrint: previous.settledPrint }),
    };
    return { kind: 'stay' };
  },
};
