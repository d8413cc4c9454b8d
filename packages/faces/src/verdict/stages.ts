import { captureTiming, classifyPose, POSE_LIMITS, type LivenessChallenge, type PoseClass, type PoseStep } from '../challenge';
import { FRAME_CONSISTENCY_THRESHOLD, OUTLINE_LIMIT, SCENE_CHANGE_LIMIT, SPOOF_LIMITS } from '../calibration/thresholds';
import { faceSimilarity } from '../compare';
import { sceneChange } from '../scene';
import { freshnessFailure } from './freshness';
import { heldPoses, referenceFrame } from './poses';
import { REPLAY_MODEL, replayInput, replayScore } from './replay';
import type {
  FrameSummary,
  LivenessContext,
  LivenessDetail,
  LivenessFrame,
  LivenessReason,
  LivenessSubmission,
  LivenessVerdict,
} from './types';

/**
 * The liveness verdict's stages (`judgeLiveness` runs them in order) over one shared context: each stage
 * either decides (returns the verdict) or records what it measured for the stages after it and returns
 * null. The order is the verdict's: frames that are not for this challenge say nothing about this person,
 * so freshness comes first; the spoof cues are judged only on a sequence that did what was asked.
 */
export interface Judgement {
  readonly challenge: LivenessChallenge;
  readonly submission: LivenessSubmission;
  readonly context: LivenessContext;
  readonly frames: readonly LivenessFrame[];
  readonly frameTimes: readonly number[];
  /** Each frame's pose class; null where the frame has not exactly one face with a pose. */
  readonly classes: readonly (PoseClass | null)[];
  /** The per-frame figures the verdict reports; stages fill in similarity and scene change. */
  readonly summaries: FrameSummary[];
  /** Set by `judgeSequence`: the poses held, in order. */
  observed: PoseStep[];
  /** Set by `measureIdentity`. */
  identity: { referenceFrame: number | null; minSimilarity: number; leastSimilar: number } | null;
  /** Set by `measureSpoof`. */
  spoof: { signals: LivenessVerdict['spoof']; mostChanged: number | null } | null;
}

export type Stage = (judgement: Judgement) => LivenessVerdict | null;

function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1000) / 1000;
}

function onlyFace(frame: LivenessFrame) {
  return frame.faces.length === 1 ? frame.faces[0] : undefined;
}

export function startJudgement(
  challenge: LivenessChallenge,
  submission: LivenessSubmission,
  context: LivenessContext,
): Judgement {
  const frames = submission.frames;
  const classes = frames.map((frame) => {
    const pose = onlyFace(frame)?.pose;
    return pose ? classifyPose(pose, POSE_LIMITS) : null;
  });
  const summaries: FrameSummary[] = frames.map((frame, index) => ({
    index,
    atMs: frame.atMs,
    faces: frame.faces.length,
    pose: onlyFace(frame)?.pose ?? null,
    poseClass: classes[index] ?? null,
    antispoof: onlyFace(frame)?.antispoof ?? null,
    liveness: onlyFace(frame)?.liveness ?? null,
    recapture: frame.recapture,
    similarity: null,
    sceneChange: null,
    outline: frame.faces.length === 1 ? round(frame.spoof?.outline ?? null) : null,
  }));
  const frameTimes = frames.map((frame) => frame.atMs);
  return { challenge, submission, context, frames, frameTimes, classes, summaries, observed: [], identity: null, spoof: null };
}

const NO_SPOOF_SIGNALS: LivenessVerdict['spoof'] = {
  recaptureFlagged: 0,
  recaptureJudged: 0,
  antispoofMean: null,
  livenessMean: null,
  replayScore: null,
  sceneChange: null,
  outline: null,
};

/** The verdict, with what the stages so far measured (nothing of identity or spoof before they ran). */
export function verdictOf(
  judgement: Judgement,
  reason: LivenessReason | null,
  detail: LivenessDetail,
  message: string,
  frameIndex: number | null = null,
): LivenessVerdict {
  const { identity, spoof } = judgement;
  return {
    passed: reason === null,
    reason,
    detail,
    message,
    frameIndex,
    observed: judgement.observed,
    referenceFrame: identity?.referenceFrame ?? null,
    minSimilarity: identity === null ? null : round(identity.minSimilarity),
    spoof: spoof?.signals ?? { ...NO_SPOOF_SIGNALS },
    frames: judgement.summaries,
  };
}

function challengeFailed(judgement: Judgement, detail: LivenessDetail, message: string, frameIndex: number | null = null) {
  return verdictOf(judgement, 'liveness_challenge_failed', detail, message, frameIndex);
}

export const judgeFreshness: Stage = (judgement) => {
  const stale = freshnessFailure(
    judgement.challenge,
    { ...judgement.submission, frameTimes: judgement.frameTimes },
    judgement.context,
  );
  return stale === null ? null : challengeFailed(judgement, stale.detail, stale.message);
};

export const judgeFacesSeen: Stage = (judgement) => {
  const { frames } = judgement;
  const noFace = frames.findIndex((frame) => frame.faces.length === 0);
  if (noFace >= 0) return verdictOf(judgement, 'face_not_found', 'no_face', `no face in frame ${noFace}`, noFace);
  const several = frames.findIndex((frame) => frame.faces.length > 1);
  if (several >= 0)
    return verdictOf(
      judgement,
      'face_multiple',
      'several_faces',
      `${frames[several]?.faces.length} faces in frame ${several}`,
      several,
    );
  return null;
};

/** The page's clock may lie about when frames were taken, but not beyond what the server saw elapse. */
export const judgeFrameTimes: Stage = (judgement) => {
  const timing = captureTiming(judgement.challenge, judgement.submission.receivedAt, judgement.frameTimes);
  return timing.kind === 'times_invalid'
    ? challengeFailed(judgement, 'frame_times_invalid', timing.message, timing.frameIndex)
    : null;
};

/** Every frame's pose read, and the poses held in the challenge's order; records the poses held. */
export const judgeSequence: Stage = (judgement) => {
  const { challenge } = judgement;
  const unreadable = judgement.classes.findIndex((pose) => pose === null);
  if (unreadable >= 0) return challengeFailed(judgement, 'pose_unreadable', `no head pose in frame ${unreadable}`, unreadable);
  const observed = heldPoses(judgement.classes as PoseClass[], [...judgement.frameTimes], challenge);
  judgement.observed = observed;
  const inOrder = observed.length === challenge.steps.length && observed.every((pose, index) => pose === challenge.steps[index]);
  if (inOrder) return null;
  const prefix = observed.every((pose, index) => pose === challenge.steps[index]);
  return challengeFailed(
    judgement,
    prefix ? 'sequence_incomplete' : 'sequence_mismatch',
    `asked ${challenge.steps.join(',')}, held ${observed.join(',') || 'nothing'}`,
  );
};

/** The reference frame and every embedded frame's similarity to it (into the summaries). Decides nothing. */
export const measureIdentity: Stage = (judgement) => {
  const { frames, summaries } = judgement;
  const reference = referenceFrame([...frames], judgement.classes as PoseClass[]);
  const referenceEmbedding = reference === null ? null : (frames[reference]?.faces[0]?.embedding ?? null);
  let minSimilarity = 1;
  let leastSimilar = 0;
  frames.forEach((frame, index) => {
    const embedding = frame.faces[0]?.embedding ?? null;
    // Frames the caller did not embed (see `keyFrames`) are not compared; `judgeIdentity` makes sure every
    // held pose was.
    if (embedding === null && referenceEmbedding !== null) return;
    const similarity = referenceEmbedding === null || embedding === null ? 0 : faceSimilarity(referenceEmbedding, embedding);
    const summary = summaries[index];
    if (summary !== undefined) summary.similarity = round(similarity);
    if (similarity < minSimilarity) {
      minSimilarity = similarity;
      leastSimilar = index;
    }
  });
  judgement.identity = { referenceFrame: reference, minSimilarity, leastSimilar };
  return null;
};

/** The sequence's spoof signals: recapture counts, the models' means, the replay score, the scene change. */
export const measureSpoof: Stage = (judgement) => {
  const { frames, summaries } = judgement;
  const recaptureJudged = frames.filter((frame) => frame.recapture?.judged === true).length;
  const recaptureFlagged = frames.filter((frame) => frame.recapture?.judged === true && frame.recapture.periodic).length;
  const replay = replayInput(frames);
  const signals: LivenessVerdict['spoof'] = {
    recaptureFlagged,
    recaptureJudged,
    antispoofMean: round(mean(frames.flatMap((frame) => (frame.faces[0]?.antispoof == null ? [] : [frame.faces[0].antispoof])))),
    livenessMean: round(mean(frames.flatMap((frame) => (frame.faces[0]?.liveness == null ? [] : [frame.faces[0].liveness])))),
    replayScore: replay === null ? null : round(replayScore(replay)),
    sceneChange: null,
    outline: round(mean(summaries.flatMap((summary) => (summary.outline === null ? [] : [summary.outline])))),
  };
  const reference = judgement.identity?.referenceFrame ?? null;
  const referenceScene = reference === null ? null : (frames[reference]?.scene ?? null);
  let mostChanged: number | null = null;
  frames.forEach((frame, index) => {
    const change = referenceScene === null || frame.scene == null ? null : sceneChange(referenceScene, frame.scene);
    const summary = summaries[index];
    if (change === null || summary === undefined) return;
    summary.sceneChange = round(change);
    if (signals.sceneChange === null || change > signals.sceneChange) {
      signals.sceneChange = change;
      mostChanged = index;
    }
  });
  signals.sceneChange = round(signals.sceneChange);
  judgement.spoof = { signals, mostChanged };
  return null;
};

/** One person throughout: every held pose embedded, and no frame far from the reference frame. */
export const judgeIdentity: Stage = (judgement) => {
  const { frames, identity } = judgement;
  if (identity === null) throw new Error('judgeIdentity runs after measureIdentity');
  const poseClasses = judgement.classes as PoseClass[];
  const embeddedPoses = new Set(
    frames.flatMap((frame, index) => (frame.faces[0]?.embedding != null ? [poseClasses[index]] : [])),
  );
  const unembeddedPose = judgement.observed.find((pose) => !embeddedPoses.has(pose));
  if (unembeddedPose !== undefined)
    return verdictOf(
      judgement,
      'liveness_spoof_detected',
      'identity_changed',
      `no frame of the ${unembeddedPose} pose was embedded, so its face cannot be shown to be the same person`,
    );
  const { minSimilarity, leastSimilar } = identity;
  if (minSimilarity < FRAME_CONSISTENCY_THRESHOLD)
    return verdictOf(
      judgement,
      'liveness_spoof_detected',
      'identity_changed',
      `frame ${leastSimilar} shows another face (similarity ${minSimilarity.toFixed(3)} < ${FRAME_CONSISTENCY_THRESHOLD})`,
      leastSimilar,
    );
  return null;
};

/** The spoof cues, strongest evidence first: a spliced scene, moiré, the models' scores, an outline, replay. */
export const judgeSpoof: Stage = (judgement) => {
  if (judgement.spoof === null) throw new Error('judgeSpoof runs after measureSpoof');
  const { signals, mostChanged } = judgement.spoof;
  const spoofed = (detail: LivenessDetail, message: string, frameIndex: number | null = null) =>
    verdictOf(judgement, 'liveness_spoof_detected', detail, message, frameIndex);
  if (signals.sceneChange !== null && signals.sceneChange >= SCENE_CHANGE_LIMIT)
    return spoofed(
      'scene_changed',
      `frame ${mostChanged} shows another scene around the face (change ${signals.sceneChange} ≥ ${SCENE_CHANGE_LIMIT})`,
      mostChanged,
    );
  const { recaptureFlagged, recaptureJudged } = signals;
  if (recaptureFlagged >= SPOOF_LIMITS.recaptureMinFrames && recaptureFlagged >= SPOOF_LIMITS.recaptureShare * recaptureJudged)
    return spoofed(
      'recapture',
      `${recaptureFlagged}/${recaptureJudged} judged frames show a screen's or print's periodic pattern`,
    );
  if (
    (signals.antispoofMean !== null && signals.antispoofMean < SPOOF_LIMITS.antispoofMeanBelow) ||
    (signals.livenessMean !== null && signals.livenessMean < SPOOF_LIMITS.livenessMeanBelow)
  )
    return spoofed('antispoof', `antispoof mean ${signals.antispoofMean}, liveness mean ${signals.livenessMean}`);
  if (signals.outline !== null && signals.outline >= OUTLINE_LIMIT)
    return spoofed(
      'outline',
      `straight edges frame the picture on three sides, as a screen's or a sheet's do (outline ${signals.outline} ≥ ${OUTLINE_LIMIT})`,
    );
  if (signals.replayScore !== null && signals.replayScore >= REPLAY_MODEL.threshold)
    return spoofed(
      'replay',
      `the frames look like a screen or a print (replay score ${signals.replayScore} ≥ ${REPLAY_MODEL.threshold})`,
    );
  return null;
};
