import { readFile } from 'node:fs/promises';
import {
  checkLiveness,
  compareFaceImages,
  createChallenge,
  FACE_MATCH_THRESHOLD,
  FRAME_CONSISTENCY_THRESHOLD,
  FRAME_LIMITS,
  FaceError,
  parseChallengeSteps,
  POSE_LIMITS,
  POSE_STEPS,
  OUTLINE_LIMIT,
  REPLAY_MODEL,
  SCENE_CHANGE_LIMIT,
  SPOOF_LIMITS,
  type AnalysedFrame,
  type FrameRecapture,
  type FrameSummary,
  type HeadPose,
} from '@idv/faces';

/**
 * `face:compare` and `face:liveness`: the service's face pipeline (@idv/faces, the code its workers run)
 * on image files, offline, with no stack running. Support staff use them to answer "why was this
 * rejected?", the benchmark to measure what the service does. The challenge's nonce and clock are made
 * up here: the frames are taken as sent in time, `--interval-ms` apart, within the window.
 */
export const FACE_USAGE = `  face:compare A B [--threshold N] [--json]
      similarity of the largest face in each image and the decision with the threshold in use
  face:liveness --challenge straight,left,right FRAME... [--interval-ms 400] [--hold-ms 300] [--json]
      per frame: faces found, pose, antispoof score; then the verdict and its reason (frames in order)`;

export class FaceUsageError extends Error {}

export type FaceLine = Record<string, unknown>;

async function readImage(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new FaceUsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

function positiveNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) throw new FaceUsageError(`--${name} must be a number ≥ 0`);
  return number;
}

/** A refused image names its file and the reason's code (exit 1, not a usage error). */
function inputError(error: unknown, file: string | undefined): never {
  if (error instanceof FaceError && error.isInputError) throw new Error(`${file ?? 'input'}: ${error.code} (${error.detail})`);
  throw error;
}

export interface FaceCompareOptions {
  files: string[];
  threshold?: string;
}

export async function faceCompare(options: FaceCompareOptions): Promise<FaceLine[]> {
  const [a, b, ...rest] = options.files;
  if (a === undefined || b === undefined || rest.length > 0) throw new FaceUsageError('face:compare takes two image files');
  const threshold = positiveNumber(options.threshold, 'threshold', FACE_MATCH_THRESHOLD);
  const [bytesA, bytesB] = [await readImage(a), await readImage(b)];
  const started = performance.now();
  const result = await compareFaceImages(bytesA, bytesB, threshold).catch((error: unknown) =>
    inputError(error, error instanceof FaceError && error.frameIndex !== undefined ? options.files[error.frameIndex] : undefined),
  );
  return [
    {
      a,
      b,
      faces: { a: result.faces[0], b: result.faces[1] },
      similarity: result.similarity,
      threshold: result.threshold,
      decision: result.similarity === null ? 'no_face' : result.match ? 'match' : 'no_match',
      ms: Math.round(performance.now() - started),
    },
  ];
}

export interface FaceLivenessOptions {
  files: string[];
  challenge?: string;
  intervalMs?: string;
  holdMs?: string;
}

function frameLine(file: string, analysed: AnalysedFrame | undefined, summary: FrameSummary | undefined): FaceLine {
  return {
    type: 'frame',
    index: summary?.index ?? analysed?.index ?? null,
    file,
    at_ms: summary?.atMs ?? null,
    faces: analysed?.faces.length ?? null,
    pose: summary?.pose ?? null,
    pose_class: summary?.poseClass ?? null,
    antispoof: summary?.antispoof ?? null,
    liveness: summary?.liveness ?? null,
    recapture: summary?.recapture ?? null,
    similarity: summary?.similarity ?? null,
    scene_change: summary?.sceneChange ?? null,
    outline: summary?.outline ?? null,
    ms: analysed?.ms ?? null,
  };
}

export async function faceLiveness(options: FaceLivenessOptions): Promise<FaceLine[]> {
  if (options.challenge === undefined) throw new FaceUsageError(`--challenge is required (${POSE_STEPS.join(',')}, any order)`);
  const steps = parseChallengeSteps(options.challenge);
  if (steps === null) throw new FaceUsageError(`--challenge takes poses from ${POSE_STEPS.join(', ')}, comma-separated`);
  if (options.files.length === 0) throw new FaceUsageError('face:liveness takes at least one frame');
  if (options.files.length > FRAME_LIMITS.maxFrames)
    throw new FaceUsageError(`at most ${FRAME_LIMITS.maxFrames} frames (${options.files.length} given)`);
  const intervalMs = positiveNumber(options.intervalMs, 'interval-ms', 400);
  const holdMs = positiveNumber(options.holdMs, 'hold-ms', 300);
  const images = [];
  for (const file of options.files) images.push(await readImage(file));
  const now = Date.now();
  const lastAt = intervalMs * options.files.length;
  const challenge = {
    ...createChallenge({ attemptId: 'ops-cli', now, windowMs: lastAt + 1_000, holdMs }),
    steps,
  };
  const started = performance.now();
  const outcome = await checkLiveness({
    challenge,
    nonce: challenge.nonce,
    attemptId: challenge.attemptId,
    receivedAt: now + lastAt,
    frames: images.map((image, index) => ({ image, atMs: intervalMs * (index + 1) })),
    context: { nonceAlreadyUsed: false },
  }).catch((error: unknown) =>
    inputError(error, error instanceof FaceError && error.frameIndex !== undefined ? options.files[error.frameIndex] : undefined),
  );
  const { verdict } = outcome;
  const lines: FaceLine[] = options.files.map((file, index) => frameLine(file, outcome.frames[index], verdict.frames[index]));
  lines.push({
    type: 'verdict',
    challenge: steps,
    passed: verdict.passed,
    reason: verdict.reason,
    detail: verdict.detail,
    message: verdict.message,
    frame_index: verdict.frameIndex,
    observed: verdict.observed,
    reference_frame: verdict.referenceFrame,
    min_similarity: verdict.minSimilarity,
    spoof: {
      recapture_flagged: verdict.spoof.recaptureFlagged,
      recapture_judged: verdict.spoof.recaptureJudged,
      antispoof_mean: verdict.spoof.antispoofMean,
      liveness_mean: verdict.spoof.livenessMean,
      replay_score: verdict.spoof.replayScore,
      scene_change: verdict.spoof.sceneChange,
      outline: verdict.spoof.outline,
    },
    thresholds: {
      pose: POSE_LIMITS,
      frame_consistency: FRAME_CONSISTENCY_THRESHOLD,
      spoof: SPOOF_LIMITS,
      replay: REPLAY_MODEL.threshold,
      scene_change: SCENE_CHANGE_LIMIT,
      outline: OUTLINE_LIMIT,
      hold_ms: holdMs,
    },
    ms: Math.round(performance.now() - started),
  });
  return lines;
}

function fixed(value: unknown, digits = 2): string {
  return typeof value === 'number' ? value.toFixed(digits) : '–';
}

/** The human-readable form of one output line. */
export function formatFaceLine(line: FaceLine): string {
  if (line.type === 'frame') {
    const pose = line.pose as HeadPose | null;
    const recapture = line.recapture as FrameRecapture | null;
    const posePart =
      pose === null
        ? 'no pose'
        : `yaw ${fixed(pose.yaw, 1)}° pitch ${fixed(pose.pitch, 1)}° roll ${fixed(pose.roll, 1)}° (${String(line.pose_class)})`;
    const recapturePart =
      recapture === null
        ? 'recapture –'
        : `recapture ${fixed(recapture.score)}${recapture.judged ? (recapture.detected ? ` flagged (${String(recapture.evidence)})` : '') : ' (not judged)'}${recapture.periodic ? ', periodic peak' : ''}`;
    return `frame ${String(line.index)} ${String(line.file)}: ${String(line.faces)} face(s), ${posePart}, antispoof ${fixed(line.antispoof)}, liveness ${fixed(line.liveness)}, ${recapturePart}, similarity ${fixed(line.similarity, 3)}, scene change ${fixed(line.scene_change, 3)}, outline ${fixed(line.outline)}`;
  }
  if (line.type === 'verdict') {
    const head = line.passed === true ? 'PASSED' : `FAILED: ${String(line.reason)} (${String(line.detail)})`;
    return `verdict: ${head}\n  challenge ${(line.challenge as string[]).join(',')}; ${String(line.message)}\n  min similarity ${fixed(line.min_similarity, 3)}; ${String(line.ms)} ms`;
  }
  const faces = line.faces as { a: number; b: number };
  return `${String(line.a)} (${faces.a} face(s)) vs ${String(line.b)} (${faces.b} face(s)): similarity ${fixed(line.similarity, 3)}, threshold ${String(line.threshold)}: ${String(line.decision)} (${String(line.ms)} ms)`;
}
