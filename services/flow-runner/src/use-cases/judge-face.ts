import { derivedArtefactId, type ArtefactId, type FaceFramesStoredData, type SessionId } from '@idv/contracts';
import type { Logger } from '@idv/kit';
import { portraitIdOf, type StoredSideReading } from '../domain/capture-rules';
import { applyOutcome, position } from '../domain/engine';
import { decodeFaceFrames } from '../domain/face-frames';
import { FaceInputRefused, type ArtefactStore, type FaceModels, type VerificationMetrics } from '../domain/ports';
import { ConcurrentSubmission } from '../domain/steps';
import { applyFaceJudgement as applyJudgementToStep } from '../domain/steps/face';
import type { FaceFrameSet, FaceJudgement } from '../domain/steps/face-state';
import { SUBMISSION_ATTEMPTS, type FlowCore } from './flow-core';

/**
 * The face worker's judgement of an attempt reaches its flow, decided on the flow as stored like a
 * reading. A judgement of frames that are no longer the ones awaited changes nothing.
 */
export async function applyFaceJudgement(
  core: FlowCore,
  sessionId: SessionId,
  stepId: string,
  artefactId: ArtefactId,
  judgement: FaceJudgement,
): Promise<void> {
  await core.submissionsOfFlow.run(sessionId, async () => {
    for (let attempt = 1; attempt <= SUBMISSION_ATTEMPTS; attempt++) {
      const record = await core.options.store.find(sessionId);
      if (!record || record.status !== 'active') return;
      const at = position(record.config, record.state);
      const step = at.kind === 'step' && at.step.id === stepId && at.step.type === 'face_liveness' ? at.step : null;
      const state = record.state.steps[stepId];
      if (!step || !state || at.kind !== 'step') return;
      // Taken before the change: the verdict must be stored before the session is resolved.
      const persist = core.persister(record, []);
      const outcome = applyJudgementToStep(step, state, artefactId, judgement);
      if (outcome.kind === 'stale') return;
      applyOutcome(record.state, step, at.choice, outcome);
      try {
        await persist();
      } catch (error) {
        if (error instanceof ConcurrentSubmission) continue;
        throw error;
      }
      const next = position(record.config, record.state);
      if (next.kind === 'finished') await core.deliver(record, next.outcome);
      return;
    }
    throw new Error(`the flow ${sessionId} kept changing while a face judgement was applied`);
  });
}

/** What judging a face attempt needs: the stored captures, the face models, the flow, and where to count. */
export interface FaceJudgingDeps {
  artefacts: ArtefactStore;
  models: FaceModels;
  core: FlowCore;
  logger: Logger;
  metrics: Pick<VerificationMetrics, 'facesJudged' | 'judgeDuration'>;
}

/** A judgement as one closed label: what the person was told, or why nothing could be judged. */
function outcomeOf(judgement: FaceJudgement): string {
  if (judgement.kind === 'unjudged') return judgement.problem;
  if (!judgement.liveness.passed) return judgement.liveness.reason ?? 'liveness_failed';
  if (judgement.document?.kind === 'missing') return 'face_document_photo_missing';
  if (judgement.document?.kind === 'compared' && !judgement.document.match) return 'face_mismatch';
  return 'passed';
}

/**
 * The durable job of one face attempt: judge its frames in the face pool (once: a redelivered job
 * reuses the stored judgement), keep the best live frame as the `selfie`, compare it with the
 * document's portrait when the step asks, then hand the judgement to the flow. Frames the models
 * refuse, or an engine failure, give the attempt back to the person rather than retry forever; a
 * database failure is thrown and the job is retried.
 */
export async function judgeFace(deps: FaceJudgingDeps, job: FaceFramesStoredData): Promise<void> {
  const { artefacts, core } = deps;
  const sessionId = job.session_id;
  const artefact = await artefacts.get(job.artefact_id);
  if (!artefact || artefact.kind !== 'face_frames') return;
  let judgement = (await artefacts.reading(job.artefact_id)) as FaceJudgement | null;
  if (!judgement) {
    const stopTimer = deps.metrics.judgeDuration.startTimer();
    judgement = await judge(deps, artefact.sessionId, job.artefact_id, decodeFaceFrames(artefact.bytes));
    stopTimer();
    // Counted when judged, not when a redelivered job reuses the stored judgement.
    deps.metrics.facesJudged.inc({ outcome: outcomeOf(judgement) });
    await artefacts.saveReading(job.artefact_id, judgement);
    // Two deliveries racing: the first stored judgement is the one.
    judgement = ((await artefacts.reading(job.artefact_id)) as FaceJudgement | null) ?? judgement;
  }
  await applyFaceJudgement(core, sessionId, job.step_id, job.artefact_id, judgement);
}

async function judge(
  deps: FaceJudgingDeps,
  sessionId: SessionId,
  artefactId: ArtefactId,
  set: FaceFrameSet,
): Promise<FaceJudgement> {
  const { models, logger } = deps;
  const started = performance.now();
  try {
    // The portrait goes with the frames: the worker compares the reference frame it has just embedded.
    const portrait = set.compareWithDocument && set.documentFront ? await portraitOf(deps, set.documentFront) : null;
    const { verdict, document: comparison } = await models.liveness({
      challenge: set.challenge,
      nonce: set.nonce,
      attemptId: set.challenge.attemptId,
      receivedAt: set.receivedAt,
      frames: set.frames,
      ...(portrait === null ? {} : { portrait }),
    });
    const reference = verdict.referenceFrame === null ? undefined : set.frames[verdict.referenceFrame]?.image;
    const selfieArtefactId = reference ? await keepSelfie(deps, sessionId, artefactId, reference) : null;
    let document: Extract<FaceJudgement, { kind: 'judged' }>['document'] = null;
    if (verdict.passed && set.compareWithDocument && reference) {
      document =
        comparison === null
          ? { kind: 'missing' }
          : {
              kind: 'compared',
              similarity: comparison.similarity,
              threshold: comparison.threshold,
              match: comparison.match,
            };
    }
    logger.info(
      {
        artefact_id: artefactId,
        passed: verdict.passed,
        detail: verdict.detail,
        frames: set.frames.length,
        document: document?.kind ?? null,
        ms: Math.round(performance.now() - started),
      },
      'face attempt judged',
    );
    return {
      kind: 'judged',
      method: set.challenge.method,
      liveness: {
        passed: verdict.passed,
        reason: verdict.reason,
        detail: verdict.detail,
        observed: verdict.observed,
        challenge: set.challenge.steps,
        minSimilarity: verdict.minSimilarity,
        spoof: verdict.spoof,
      },
      document,
      selfieArtefactId,
    };
  } catch (error) {
    if (error instanceof FaceInputRefused) {
      logger.warn(
        { artefact_id: artefactId, code: error.error.code, frame: error.error.frameIndex },
        'face frames refused by the models',
      );
      return { kind: 'unjudged', problem: 'frames_unreadable' };
    }
    logger.error({ err: error, artefact_id: artefactId }, 'the face engine failed on an attempt');
    return { kind: 'unjudged', problem: 'engine_failed' };
  }
}

/** The best live frame, encrypted like every capture; a later attempt's replaces it. */
async function keepSelfie(deps: FaceJudgingDeps, sessionId: SessionId, framesId: ArtefactId, jpeg: Buffer): Promise<ArtefactId> {
  // Derived from the frames' id: a redelivered job replaces the same row instead of adding one.
  const id = derivedArtefactId(framesId, 'selfie');
  await deps.artefacts.store({ id, sessionId, kind: 'selfie', bytes: jpeg, contentType: 'image/jpeg' });
  return id;
}

/** The portrait cropped from the document's accepted front when it was read, if one was found. */
async function portraitOf(deps: FaceJudgingDeps, frontArtefactId: ArtefactId): Promise<Buffer | null> {
  const reading = (await deps.artefacts.reading(frontArtefactId)) as StoredSideReading | null;
  if (!reading?.has_face_crop) return null;
  return (await deps.artefacts.get(portraitIdOf(frontArtefactId)))?.bytes ?? null;
}
