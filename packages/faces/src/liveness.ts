import type { ScreenVerdict } from '@idv/verification';
import { captureTiming, classifyPose, POSE_LIMITS, type LivenessChallenge, type PoseClass, type PoseStep } from './challenge';
import { FRAME_CONSISTENCY_THRESHOLD, faceSimilarity } from './compare';
import type { DetectedFace, HeadPose } from './engine';
import { FRAME_LIMITS } from './limits';
import fitted from './replay-model.json';
import { sceneChange, type SceneLayout } from './scene';
import { SPOOF_FEATURE_NAMES, type SpoofFeatureName, type SpoofFeatures } from './spoof';

/**
 * The liveness verdict, as a pure function of the challenge, what the models saw in each frame and
 * whether the nonce was used before. No I/O, no clock: everything time-related comes in as data.
 */
export const LIVENESS_REASONS = [
  'face_not_found',
  'face_multiple',
  'liveness_challenge_failed',
  'liveness_spoof_detected',
] as const;
export type LivenessReason = (typeof LIVENESS_REASONS)[number];

/** Why, more precisely: for logs, support and the CLI. The page words its hint from `reason`. */
export type LivenessDetail =
  | 'passed'
  | 'nonce_mismatch'
  | 'attempt_mismatch'
  | 'nonce_reused'
  | 'not_yet_valid'
  | 'expired'
  | 'no_frames'
  | 'too_many_frames'
  | 'frame_times_invalid'
  | 'no_face'
  | 'several_faces'
  | 'pose_unreadable'
  | 'sequence_incomplete'
  | 'sequence_mismatch'
  | 'identity_changed'
  | 'scene_changed'
  | 'recapture'
  | 'antispoof'
  | 'outline'
  | 'replay';

/**
 * What the recapture analysis of @idv/verification said of a frame (`QualityReport.screen`): `periodic`
 * is whether a moiré peak was seen, whatever decided; `evidence` what decided.
 */
export type FrameRecapture = Pick<ScreenVerdict, 'score' | 'detected' | 'judged' | 'evidence' | 'periodic'>;

export interface LivenessFrame {
  /** Milliseconds since the challenge was issued, as the page estimated them (`captureTiming`). */
  atMs: number;
  /** Every face found in the frame (the engine's `FaceAnalysis.faces`). */
  faces: DetectedFace[];
  recapture: FrameRecapture | null;
  /** The frame's replay cues (src/spoof.ts); absent or null where they were not measured. */
  spoof?: SpoofFeatures | null;
  /** What surrounds the face (src/scene.ts); absent or null where it was not measured. */
  scene?: SceneLayout | null;
}

export interface LivenessSubmission {
  nonce: string;
  attemptId: string;
  /** Epoch ms, server clock, when the last frame arrived. */
  receivedAt: number;
  frames: LivenessFrame[];
}

export interface LivenessContext {
  /** The caller's store of used nonces answered for this one (it then marks it used, whatever the verdict). */
  nonceAlreadyUsed: boolean;
}

/**
 * Spoof limits of the two older signals (docs/faces.md "Spoof signals"):
 * - Recapture: only the periodic (moiré) evidence of @idv/verification's model counts. On 480×640 face
 *   frames it fired on no frame of either benchmark seed (corpus v1 and v2): the model judges few frames
 *   that small. Its colour-and-tone evidence flags genuine camera frames (up to 3 of 9) as well as
 *   replays, so it decides nothing; one flagged frame is not enough either.
 * - human's antispoof and liveness means overlap completely between genuine frames and replays; only a
 *   mean far below every genuine one counts. They enter `REPLAY_MODEL` too, where the fit gave them
 *   almost no weight.
 * What refuses replays is `REPLAY_MODEL` (the frames' own cues), the detector and the challenge.
 */
export const SPOOF_LIMITS = {
  /** Share of the frames the recapture model could judge that showed a periodic peak. */
  recaptureShare: 0.5,
  /** At least this many flagged frames, whatever the share. */
  recaptureMinFrames: 2,
  antispoofMeanBelow: 0.2,
  livenessMeanBelow: 0.2,
} as const;

/**
 * Above this `sceneChange` against the reference frame, a frame was taken somewhere else: frames spliced
 * in from other footage. Chosen on the face corpus's seeds 11 and 12, held out on seed 13 (docs/faces.md
 * "The scene along the sequence").
 */
export const SCENE_CHANGE_LIMIT = 0.64;

/**
 * At or above this sequence mean of `outline` (src/spoof.ts), the picture is framed by straight edges on
 * three sides: a screen's or a sheet's. Chosen on the face corpus's seeds 11 and 12 and on real photos
 * (the test-mode samples, face-api's demo photos), held out on seed 13 (docs/faces.md "The outline of a
 * screen").
 */
export const OUTLINE_LIMIT = 1.2;

/** What the replay model weighs: the frame's own cues (src/spoof.ts) and human's two scores, as sequence means. */
export const REPLAY_INPUT_NAMES = [...SPOOF_FEATURE_NAMES, 'antispoof', 'liveness'] as const;
export type ReplayInputName = SpoofFeatureName | 'antispoof' | 'liveness';
export type ReplayInput = Record<ReplayInputName, number>;

/** A logistic model over standardised inputs: score = σ(bias + Σ weight · (input − centre) / scale). */
export interface ReplayModel {
  /** Which benchmark results it was fitted on, and when. */
  fittedOn: string;
  centre: ReplayInput;
  scale: ReplayInput;
  weights: ReplayInput;
  bias: number;
  /** Scores at or above this are refused as a replay. */
  threshold: number;
}

/**
 * Fitted by `node bench/faces/fit-replay.mjs` on the face corpus's seed 11 (genuine camera frames: live,
 * still and swap sequences; replays: screen and print), measured on seed 12 (docs/faces.md "Spoof
 * signals", with the figures). The threshold sits above every genuine sequence of the fitting seed.
 */
export const REPLAY_MODEL: ReplayModel = fitted;

/** Sequence means of the replay inputs over the frames that have them; null when no frame does. */
export function replayInput(frames: readonly LivenessFrame[]): ReplayInput | null {
  const measured = frames.filter(
    (frame) =>
      frame.faces.length === 1 && frame.spoof != null && frame.faces[0]?.antispoof != null && frame.faces[0]?.liveness != null,
  );
  if (measured.length === 0) return null;
  const input = {} as ReplayInput;
  for (const name of SPOOF_FEATURE_NAMES)
    input[name] = measured.reduce((sum, frame) => sum + (frame.spoof?.[name] ?? 0), 0) / measured.length;
  input.antispoof = measured.reduce((sum, frame) => sum + (frame.faces[0]?.antispoof ?? 0), 0) / measured.length;
  input.liveness = measured.reduce((sum, frame) => sum + (frame.faces[0]?.liveness ?? 0), 0) / measured.length;
  return input;
}

export function replayScore(input: ReplayInput, model: ReplayModel = REPLAY_MODEL): number {
  let z = model.bias;
  for (const name of REPLAY_INPUT_NAMES) z += (model.weights[name] * (input[name] - model.centre[name])) / model.scale[name];
  return 1 / (1 + Math.exp(-z));
}

export interface FrameSummary {
  index: number;
  atMs: number;
  faces: number;
  pose: HeadPose | null;
  poseClass: PoseClass | null;
  antispoof: number | null;
  liveness: number | null;
  recapture: FrameRecapture | null;
  /** Against the reference frame. */
  similarity: number | null;
  /** The scene around the face against the reference frame's (`sceneChange`). */
  sceneChange: number | null;
  /** The frame's `outline` (src/spoof.ts), when it has one face and was measured. */
  outline: number | null;
}

export interface LivenessVerdict {
  passed: boolean;
  reason: LivenessReason | null;
  detail: LivenessDetail;
  /** English, for logs and the CLI. */
  message: string;
  /** The first frame that decided a failure, when one did. */
  frameIndex: number | null;
  /** The held poses, in the order the person held them. */
  observed: PoseStep[];
  /** The frame to compare with the document's photo: straight, largest and most confident. */
  referenceFrame: number | null;
  minSimilarity: number | null;
  spoof: {
    recaptureFlagged: number;
    recaptureJudged: number;
    antispoofMean: number | null;
    livenessMean: number | null;
    /** `replayScore` of the sequence (null when no frame had the cues). */
    replayScore: number | null;
    /** The largest `sceneChange` of a frame against the reference frame (null when none was measured). */
    sceneChange: number | null;
    /** The sequence mean of the frames' `outline` (null when no frame had the cues). */
    outline: number | null;
  };
  frames: FrameSummary[];
}

interface Run {
  pose: PoseStep;
  first: number;
  last: number;
  count: number;
}

function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1000) / 1000;
}

/** Consecutive frames of one pose; frames between poses neither count nor break a run. */
function poseRuns(classes: PoseClass[]): Run[] {
  const runs: Run[] = [];
  classes.forEach((pose, index) => {
    if (pose === 'between') return;
    const current = runs.at(-1);
    if (current !== undefined && current.pose === pose) {
      current.last = index;
      current.count += 1;
    } else runs.push({ pose, first: index, last: index, count: 1 });
  });
  return runs;
}

/**
 * The poses the person held, in order. A run shorter than the hold is a transition (turning from left to
 * right passes through straight) and is dropped; equal neighbours left after that merge. Looking at the
 * camera before the first turn and after the last is natural, so a leading or trailing "straight" the
 * challenge does not ask for there is dropped too.
 */
export function heldPoses(
  classes: PoseClass[],
  atMs: number[],
  challenge: Pick<LivenessChallenge, 'steps' | 'holdMs'>,
): PoseStep[] {
  const minFrames = challenge.holdMs > 0 ? 2 : 1;
  const held: PoseStep[] = [];
  for (const run of poseRuns(classes)) {
    const span = (atMs[run.last] ?? 0) - (atMs[run.first] ?? 0);
    if (run.count < minFrames || span < challenge.holdMs) continue;
    if (held.at(-1) !== run.pose) held.push(run.pose);
  }
  if (challenge.steps[0] !== 'straight' && held[0] === 'straight') held.shift();
  if (challenge.steps.at(-1) !== 'straight' && held.length > 1 && held.at(-1) === 'straight') held.pop();
  return held;
}

function referenceFrame(frames: LivenessFrame[], classes: PoseClass[], needEmbedding = true): number | null {
  let best: number | null = null;
  let bestScore = -1;
  frames.forEach((frame, index) => {
    const face = frame.faces[0];
    if (face === undefined || frame.faces.length !== 1 || (needEmbedding && face.embedding === null)) return;
    // A straight frame always beats a turned one: it is the one a document photo resembles.
    const score = (classes[index] === 'straight' ? 1e9 : 0) + face.box.width * face.box.height * face.score;
    if (score > bestScore) {
      bestScore = score;
      best = index;
    }
  });
  return best;
}

/**
 * The frames worth an embedding, from what the pose-only pass saw: the reference frame (compared with
 * the document) and one frame of every run of a held pose, drawn with `pick` so that a sender cannot
 * know which. A face swapped for a whole pose is always embedded; the embedding is half of a frame's
 * CPU, so 9 frames cost 4 embeddings instead of 9 (docs/faces.md, "Cost").
 */
export function keyFrames(
  frames: LivenessFrame[],
  challenge: Pick<LivenessChallenge, 'holdMs'>,
  pick: (max: number) => number,
): number[] {
  const classes = frames.map((frame) =>
    frame.faces.length === 1 && frame.faces[0]?.pose ? classifyPose(frame.faces[0].pose, POSE_LIMITS) : 'between',
  );
  const chosen = new Set<number>();
  const reference = referenceFrame(frames, classes, false);
  if (reference !== null) chosen.add(reference);
  const minFrames = challenge.holdMs > 0 ? 2 : 1;
  for (const run of poseRuns(classes)) {
    const span = (frames[run.last]?.atMs ?? 0) - (frames[run.first]?.atMs ?? 0);
    if (run.count < minFrames || span < challenge.holdMs) continue;
    const members = classes.flatMap((pose, index) =>
      index >= run.first && index <= run.last && pose === run.pose ? [index] : [],
    );
    const member = members[pick(members.length)];
    if (member !== undefined) chosen.add(member);
  }
  return [...chosen].sort((a, b) => a - b);
}

export interface FreshnessFailure {
  detail: Extract<
    LivenessDetail,
    'nonce_mismatch' | 'attempt_mismatch' | 'nonce_reused' | 'not_yet_valid' | 'expired' | 'no_frames' | 'too_many_frames'
  >;
  message: string;
}

/**
 * The checks that need no model: a caller runs them before spending CPU on the frames. Frame times that
 * are not plausible are left to `judgeLiveness`, which names the frame.
 */
export function freshnessFailure(
  challenge: LivenessChallenge,
  submission: Pick<LivenessSubmission, 'nonce' | 'attemptId' | 'receivedAt'> & { frameTimes: readonly number[] },
  context: LivenessContext,
): FreshnessFailure | null {
  if (submission.nonce !== challenge.nonce)
    return { detail: 'nonce_mismatch', message: 'the frames carry another challenge’s nonce' };
  if (submission.attemptId !== challenge.attemptId)
    return { detail: 'attempt_mismatch', message: 'the challenge was issued for another attempt' };
  if (context.nonceAlreadyUsed) return { detail: 'nonce_reused', message: 'the challenge’s nonce was already used' };
  const timing = captureTiming(challenge, submission.receivedAt, submission.frameTimes);
  if (timing.kind === 'received_before_issue')
    return { detail: 'not_yet_valid', message: 'frames received before the challenge was issued' };
  if (timing.kind === 'expired') return { detail: 'expired', message: timing.message };
  const frameCount = submission.frameTimes.length;
  if (frameCount === 0) return { detail: 'no_frames', message: 'no frames' };
  if (frameCount > FRAME_LIMITS.maxFrames)
    return { detail: 'too_many_frames', message: `${frameCount} frames, at most ${FRAME_LIMITS.maxFrames}` };
  return null;
}

export function judgeLiveness(
  challenge: LivenessChallenge,
  submission: LivenessSubmission,
  context: LivenessContext,
): LivenessVerdict {
  const frames = submission.frames;
  const classes: (PoseClass | null)[] = frames.map((frame) =>
    frame.faces.length === 1 && frame.faces[0]?.pose ? classifyPose(frame.faces[0].pose, POSE_LIMITS) : null,
  );
  const summaries: FrameSummary[] = frames.map((frame, index) => ({
    index,
    atMs: frame.atMs,
    faces: frame.faces.length,
    pose: frame.faces.length === 1 ? (frame.faces[0]?.pose ?? null) : null,
    poseClass: classes[index] ?? null,
    antispoof: frame.faces.length === 1 ? (frame.faces[0]?.antispoof ?? null) : null,
    liveness: frame.faces.length === 1 ? (frame.faces[0]?.liveness ?? null) : null,
    recapture: frame.recapture,
    similarity: null,
    sceneChange: null,
    outline: frame.faces.length === 1 ? round(frame.spoof?.outline ?? null) : null,
  }));
  const verdict = (
    reason: LivenessReason | null,
    detail: LivenessDetail,
    message: string,
    extra: Partial<Pick<LivenessVerdict, 'frameIndex' | 'observed' | 'referenceFrame' | 'minSimilarity' | 'spoof'>> = {},
  ): LivenessVerdict => ({
    passed: reason === null,
    reason,
    detail,
    message,
    frameIndex: null,
    observed: [],
    referenceFrame: null,
    minSimilarity: null,
    spoof: {
      recaptureFlagged: 0,
      recaptureJudged: 0,
      antispoofMean: null,
      livenessMean: null,
      replayScore: null,
      sceneChange: null,
      outline: null,
    },
    ...extra,
    frames: summaries,
  });
  const failed = (detail: LivenessDetail, message: string, frameIndex: number | null = null) =>
    verdict('liveness_challenge_failed', detail, message, { frameIndex });

  // Freshness first: frames that are not for this challenge say nothing about this person.
  const frameTimes = frames.map((frame) => frame.atMs);
  const stale = freshnessFailure(challenge, { ...submission, frameTimes }, context);
  if (stale !== null) return failed(stale.detail, stale.message);

  const noFace = frames.findIndex((frame) => frame.faces.length === 0);
  if (noFace >= 0) return verdict('face_not_found', 'no_face', `no face in frame ${noFace}`, { frameIndex: noFace });
  const several = frames.findIndex((frame) => frame.faces.length > 1);
  if (several >= 0)
    return verdict('face_multiple', 'several_faces', `${frames[several]?.faces.length} faces in frame ${several}`, {
      frameIndex: several,
    });

  // The page's clock may lie about when frames were taken, but not beyond what the server saw elapse.
  const timing = captureTiming(challenge, submission.receivedAt, frameTimes);
  if (timing.kind === 'times_invalid') return failed('frame_times_invalid', timing.message, timing.frameIndex);

  const unreadable = classes.findIndex((pose) => pose === null);
  if (unreadable >= 0) return failed('pose_unreadable', `no head pose in frame ${unreadable}`, unreadable);
  const poseClasses = classes as PoseClass[];
  const observed = heldPoses(
    poseClasses,
    frames.map((frame) => frame.atMs),
    challenge,
  );
  const inOrder = observed.length === challenge.steps.length && observed.every((pose, index) => pose === challenge.steps[index]);
  if (!inOrder) {
    const prefix = observed.every((pose, index) => pose === challenge.steps[index]);
    return verdict(
      'liveness_challenge_failed',
      prefix ? 'sequence_incomplete' : 'sequence_mismatch',
      `asked ${challenge.steps.join(',')}, held ${observed.join(',') || 'nothing'}`,
      { observed },
    );
  }

  const reference = referenceFrame(frames, poseClasses);
  const referenceEmbedding = reference === null ? null : (frames[reference]?.faces[0]?.embedding ?? null);
  let minSimilarity = 1;
  let leastSimilar = 0;
  frames.forEach((frame, index) => {
    const embedding = frame.faces[0]?.embedding ?? null;
    // Frames the caller did not embed (see `keyFrames`) are not compared; `unembeddedPose` below makes
    // sure every held pose was.
    if (embedding === null && referenceEmbedding !== null) return;
    const similarity = referenceEmbedding === null || embedding === null ? 0 : faceSimilarity(referenceEmbedding, embedding);
    const summary = summaries[index];
    if (summary !== undefined) summary.similarity = round(similarity);
    if (similarity < minSimilarity) {
      minSimilarity = similarity;
      leastSimilar = index;
    }
  });
  const recaptureJudged = frames.filter((frame) => frame.recapture?.judged === true).length;
  const recaptureFlagged = frames.filter((frame) => frame.recapture?.judged === true && frame.recapture.periodic).length;
  const spoof = {
    recaptureFlagged,
    recaptureJudged,
    antispoofMean: round(mean(frames.flatMap((frame) => (frame.faces[0]?.antispoof == null ? [] : [frame.faces[0].antispoof])))),
    livenessMean: round(mean(frames.flatMap((frame) => (frame.faces[0]?.liveness == null ? [] : [frame.faces[0].liveness])))),
    replayScore: null as number | null,
    sceneChange: null as number | null,
    outline: round(mean(summaries.flatMap((summary) => (summary.outline === null ? [] : [summary.outline])))),
  };
  const replay = replayInput(frames);
  spoof.replayScore = replay === null ? null : round(replayScore(replay));
  const referenceScene = reference === null ? null : (frames[reference]?.scene ?? null);
  let mostChanged: number | null = null;
  frames.forEach((frame, index) => {
    const change = referenceScene === null || frame.scene == null ? null : sceneChange(referenceScene, frame.scene);
    const summary = summaries[index];
    if (change === null || summary === undefined) return;
    summary.sceneChange = round(change);
    if (spoof.sceneChange === null || change > spoof.sceneChange) {
      spoof.sceneChange = change;
      mostChanged = index;
    }
  });
  spoof.sceneChange = round(spoof.sceneChange);
  const extra = { observed, referenceFrame: reference, minSimilarity: round(minSimilarity), spoof };
  const embeddedPoses = new Set(
    frames.flatMap((frame, index) => (frame.faces[0]?.embedding != null ? [poseClasses[index]] : [])),
  );
  const unembeddedPose = observed.find((pose) => !embeddedPoses.has(pose));
  if (unembeddedPose !== undefined)
    return verdict(
      'liveness_spoof_detected',
      'identity_changed',
      `no frame of the ${unembeddedPose} pose was embedded, so its face cannot be shown to be the same person`,
      extra,
    );
  if (minSimilarity < FRAME_CONSISTENCY_THRESHOLD)
    return verdict(
      'liveness_spoof_detected',
      'identity_changed',
      `frame ${leastSimilar} shows another face (similarity ${minSimilarity.toFixed(3)} < ${FRAME_CONSISTENCY_THRESHOLD})`,
      { ...extra, frameIndex: leastSimilar },
    );
  if (spoof.sceneChange !== null && spoof.sceneChange >= SCENE_CHANGE_LIMIT)
    return verdict(
      'liveness_spoof_detected',
      'scene_changed',
      `frame ${mostChanged} shows another scene around the face (change ${spoof.sceneChange} ≥ ${SCENE_CHANGE_LIMIT})`,
      { ...extra, frameIndex: mostChanged },
    );
  if (recaptureFlagged >= SPOOF_LIMITS.recaptureMinFrames && recaptureFlagged >= SPOOF_LIMITS.recaptureShare * recaptureJudged)
    return verdict(
      'liveness_spoof_detected',
      'recapture',
      `${recaptureFlagged}/${recaptureJudged} judged frames show a screen's or print's periodic pattern`,
      extra,
    );
  if (
    (spoof.antispoofMean !== null && spoof.antispoofMean < SPOOF_LIMITS.antispoofMeanBelow) ||
    (spoof.livenessMean !== null && spoof.livenessMean < SPOOF_LIMITS.livenessMeanBelow)
  )
    return verdict(
      'liveness_spoof_detected',
      'antispoof',
      `antispoof mean ${spoof.antispoofMean}, liveness mean ${spoof.livenessMean}`,
      extra,
    );
  if (spoof.outline !== null && spoof.outline >= OUTLINE_LIMIT)
    return verdict(
      'liveness_spoof_detected',
      'outline',
      `straight edges frame the picture on three sides, as a screen's or a sheet's do (outline ${spoof.outline} ≥ ${OUTLINE_LIMIT})`,
      extra,
    );
  if (spoof.replayScore !== null && spoof.replayScore >= REPLAY_MODEL.threshold)
    return verdict(
      'liveness_spoof_detected',
      'replay',
      `the frames look like a screen or a print (replay score ${spoof.replayScore} ≥ ${REPLAY_MODEL.threshold})`,
      extra,
    );
  return verdict(null, 'passed', `held ${observed.join(',')}`, extra);
}
