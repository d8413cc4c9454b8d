import { newId, type ArtefactId, type CaptureStoredData, type DocumentData, type SessionId } from '@idv/contracts';
import type { Logger } from '@idv/kit';
import { settledPrintOf, withSettledPrint, type SettledPrint, type SideReading } from '@idv/verification';
import {
  captureProblems,
  captureVerdict,
  portraitIdOf,
  problemsAgainstFront,
  todayInArgentina,
  toStoredReading,
  type StoredSideReading,
} from '../domain/capture-rules';
import { decideDocument } from '../domain/document-decision';
import { applyOutcome, position } from '../domain/engine';
import type { ArtefactStore, FlowRecord, RegistryCheckChange, SideReader, VerificationMetrics } from '../domain/ports';
import { REASON_CODES } from '../domain/reason-codes';
import { registryHoldUntil, type RegistryQuery } from '../domain/registry';
import { ConcurrentSubmission, type CaptureKind } from '../domain/steps';
import { applyCaptureReading, problemOfType, sideBeingRead } from '../domain/steps/document';
import type { CaptureProblem, CaptureVerdict, DocumentProgress } from '../domain/steps/document-state';
import { SUBMISSION_ATTEMPTS, type FlowCore } from './flow-core';

/**
 * What the verification workers read from a capture reaches its flow: decided on the flow as
 * stored, like a submission (queued behind the flow's submissions, run again if it lost a race).
 * A reading of a capture that was replaced meanwhile changes nothing.
 */
export async function applyReading(
  core: FlowCore,
  sessionId: SessionId,
  stepId: string,
  artefactId: ArtefactId,
  verdict: CaptureVerdict,
): Promise<void> {
  await core.submissionsOfFlow.run(sessionId, async () => {
    for (let attempt = 1; attempt <= SUBMISSION_ATTEMPTS; attempt++) {
      const record = await core.options.store.find(sessionId);
      if (!record || record.status !== 'active') return;
      try {
        await applyReadingTo(core, record, stepId, artefactId, verdict);
        return;
      } catch (error) {
        if (!(error instanceof ConcurrentSubmission)) throw error;
      }
    }
    throw new Error(`the flow ${sessionId} kept changing while a reading was applied`);
  });
}

async function applyReadingTo(
  core: FlowCore,
  record: FlowRecord,
  stepId: string,
  artefactId: ArtefactId,
  verdict: CaptureVerdict,
) {
  const at = position(record.config, record.state);
  const step = at.kind === 'step' && at.step.id === stepId && at.step.type === 'document_ar' ? at.step : null;
  const state = record.state.steps[stepId];
  if (!step || !state) return;
  const side = sideBeingRead(state.document, artefactId);
  if (side === null) return;
  const progress = state.document!;
  const pooling =
    side === 'front' && verdict.problems.includes('print_unreadable') ? await frontPooling(core, progress, artefactId) : null;
  const problems = await problemsOfSide(core, step, progress, side, artefactId, pooling?.verdict ?? verdict);
  const persist = core.persister(record, []);
  let outcome = applyCaptureReading(step, state, artefactId, problems);
  if (outcome.kind === 'stale') return;
  const front = progress.captures.front;
  if (pooling !== null && front?.status === 'refused' && front.problem === 'print_unreadable' && pooling.carried !== null) {
    front.settledPrint = pooling.carried;
  }
  if (outcome.kind === 'complete') {
    const verdict = decideDocument(await readingsOfSides(core, state.document!), {
      progress: state.document!,
      acceptedTypes: step.documents,
      registryCheck: step.registryCheck,
      today: todayInArgentina(),
    });
    state.document!.checks = verdict.checks;
    if (verdict.kind === 'passed' && step.registryCheck) {
      await scheduleRegistryCheck(core, record, step.id, verdict.document, verdict.registry);
      return;
    }
    outcome = verdict.kind === 'passed' ? { kind: 'passed', document: verdict.document } : verdict;
  }
  applyOutcome(record.state, step, at.kind === 'step' ? at.choice : null, outcome);
  await persist();
  const next = position(record.config, record.state);
  if (next.kind === 'finished') await core.deliver(record, next.outcome);
}

/**
 * A front refused for print it did not settle, pooled with what the front's earlier photos of the same
 * card settled (`withSettledPrint`): its verdict once pooled, and what to carry to the next photo should
 * it still be refused for its print.
 */
async function frontPooling(
  core: FlowCore,
  progress: DocumentProgress,
  artefactId: ArtefactId,
): Promise<{ verdict: CaptureVerdict; carried: SettledPrint | null } | null> {
  const reading = (await core.options.readings.reading(artefactId)) as StoredSideReading | null;
  if (!reading) return null;
  const earlier = progress.captures.front?.settledPrint ?? null;
  return { verdict: captureVerdict(withSettledPrint(reading, earlier)), carried: settledPrintOf(reading, earlier) ?? earlier };
}

/** The accepted front's stored reading as the flow took it: with the print its earlier photos settled. */
async function frontReading(core: FlowCore, progress: DocumentProgress, frontId: ArtefactId): Promise<StoredSideReading | null> {
  const stored = (await core.options.readings.reading(frontId)) as StoredSideReading | null;
  return stored && withSettledPrint(stored, progress.captures.front?.settledPrint ?? null);
}

/**
 * A side's problems for the step: a side of another type than the chosen one is told so first; a side
 * after the front is compared with the accepted front (after a screen, which is told first whatever
 * it shows); otherwise what the side itself showed.
 */
async function problemsOfSide(
  core: FlowCore,
  step: Parameters<typeof applyCaptureReading>[0],
  progress: DocumentProgress,
  side: CaptureKind,
  artefactId: ArtefactId,
  verdict: CaptureVerdict,
): Promise<readonly CaptureProblem[]> {
  const ofType = problemOfType(step, progress, verdict.detectedType);
  if (ofType !== null) return [ofType, ...verdict.problems.filter((problem) => problem !== 'wrong_type' && problem !== ofType)];
  const front = progress.captures.front;
  if ((side !== 'back' && side !== 'front_angle') || front?.status !== 'accepted') return verdict.problems;
  const against = await againstFront(core, progress, artefactId, side);
  if (against.length === 0) return verdict.problems;
  const screen = verdict.problems.filter((problem) => problem === 'screen');
  return [...screen, ...against, ...verdict.problems.filter((problem) => problem !== 'screen' && !against.includes(problem))];
}

/**
 * The document passed its own checks and waits on the registry: the query is kept with the step and
 * the check is scheduled in the same transaction, so a check is never lost and never scheduled twice
 * (a second delivery of the reading finds the capture accepted and changes nothing). A document the
 * registry cannot be asked about (a field it needs was not read) is rejected as unreadable.
 */
async function scheduleRegistryCheck(
  core: FlowCore,
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
    await core.persister(record, [])();
    const next = position(record.config, record.state);
    if (next.kind === 'finished') await core.deliver(record, next.outcome);
    return;
  }
  state.document!.registry = { status: 'pending', query, document };
  const window = core.options.registryRetryWindowMs ?? 24 * 3_600_000 * core.options.timeScale;
  const schedule: RegistryCheckChange = {
    kind: 'schedule',
    stepId,
    checkId: newId('registryCheck'),
    giveUpAt: new Date(core.now().getTime() + window),
  };
  if (!(await core.options.store.update(record, [], schedule))) throw new ConcurrentSubmission();
  // The hold starts with the check, not with the runner's first attempt: a runner that is busy or
  // restarting must not leave the session to be abandoned meanwhile. A hold that fails here is placed
  // again before every attempt.
  await core.options.sessions
    .hold(record.sessionId, registryHoldUntil(schedule.giveUpAt, core.options.timeScale))
    .catch(() => undefined);
  core.options.onRegistryCheckScheduled?.();
}

/**
 * What a side read after the front says against the accepted front, from both stored readings: the
 * angled front the front's photo again or seen from the same angle (`not_tilted`), a back of another
 * document (`other_document`). A reading gone (retention) leaves nothing to compare: the document's own
 * checks still run.
 */
async function againstFront(
  core: FlowCore,
  progress: DocumentProgress,
  captureId: ArtefactId,
  side: 'back' | 'front_angle',
): Promise<CaptureProblem[]> {
  const front = await frontReading(core, progress, progress.captures.front!.artefactId);
  const read = (await core.options.readings.reading(captureId)) as StoredSideReading | null;
  if (!front || !read) return [];
  return problemsAgainstFront(front, read, side);
}

/** The stored readings of every accepted side, for the cross-checks (no image is read again). */
async function readingsOfSides(core: FlowCore, progress: DocumentProgress): Promise<SideReading[]> {
  const readings: SideReading[] = [];
  for (const [side, capture] of Object.entries(progress.captures)) {
    if (!capture) continue;
    const stored =
      side === 'front'
        ? await frontReading(core, progress, capture.artefactId)
        : ((await core.options.readings.reading(capture.artefactId)) as StoredSideReading | null);
    if (!stored) throw new Error(`no reading stored for ${capture.artefactId}`);
    readings.push({ ...stored, face_crop: null });
  }
  return readings;
}

/** What reading a capture needs: the stored captures, the readers, the flow, and where to count. */
export interface CaptureReadingDeps {
  artefacts: ArtefactStore;
  reader: SideReader;
  core: FlowCore;
  logger: Logger;
  metrics: Pick<VerificationMetrics, 'sidesRead' | 'readDuration'>;
}

/**
 * A capture's reading job: read it in the worker pool (once: a redelivered job reuses the
 * stored reading), keep the reading, then hand the verdict to the flow. A capture replaced or deleted
 * meanwhile is skipped. A failure of the engine itself on this image counts as an unreadable photo
 * rather than a job retried forever; a failure of the database is thrown and the job is retried.
 */
export async function readCapture(deps: CaptureReadingDeps, job: CaptureStoredData): Promise<void> {
  const { artefacts, reader, core, logger } = deps;
  const sessionId = job.session_id;
  const artefact = await artefacts.get(job.artefact_id);
  if (!artefact) return;
  let reading = (await artefacts.reading(job.artefact_id)) as StoredSideReading | null;
  if (!reading) {
    if (artefact.kind !== 'front' && artefact.kind !== 'back' && artefact.kind !== 'front_angle') return;
    let read: SideReading;
    const stopTimer = deps.metrics.readDuration.startTimer({ side: artefact.kind });
    try {
      read = await reader.readSide(artefact.bytes, {
        side: artefact.kind,
        acceptedTypes: job.accepted_types ?? ['dni', 'passport', 'licence'],
        today: todayInArgentina(),
      });
    } catch (error) {
      stopTimer();
      deps.metrics.sidesRead.inc({ side: artefact.kind, outcome: 'engine_failed' });
      logger.error({ err: error, artefact_id: job.artefact_id }, 'the verification engine failed on a capture');
      await applyReading(core, sessionId, job.step_id, job.artefact_id, {
        problems: ['unreadable_image'],
        detectedType: null,
      });
      return;
    }
    stopTimer();
    reading = toStoredReading(read);
    // Counted when read, not when a redelivered job reuses the stored reading.
    deps.metrics.sidesRead.inc({ side: artefact.kind, outcome: captureProblems(reading)[0] ?? 'accepted' });
    // Before the reading: a stored reading with `has_face_crop` always has its portrait beside it.
    if (read.face_crop !== null && artefact.kind === 'front') {
      await artefacts.store({
        id: portraitIdOf(artefact.id),
        sessionId: artefact.sessionId,
        kind: 'document_portrait',
        bytes: read.face_crop,
        contentType: 'image/jpeg',
      });
    }
    await artefacts.saveReading(job.artefact_id, reading);
  }
  await applyReading(core, sessionId, job.step_id, job.artefact_id, captureVerdict(reading));
}
