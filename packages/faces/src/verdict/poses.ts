import { classifyPose, POSE_LIMITS, type LivenessChallenge, type PoseClass, type PoseStep } from '../challenge';
import type { LivenessFrame } from './types';

/** Consecutive frames of one pose: the first and last frame's index and how many frames. */
export interface PoseRun {
  pose: PoseStep;
  first: number;
  last: number;
  count: number;
}

/** Consecutive frames of one pose; frames between poses neither count nor break a run. */
export function poseRuns(classes: PoseClass[]): PoseRun[] {
  const runs: PoseRun[] = [];
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

export function referenceFrame(frames: LivenessFrame[], classes: PoseClass[], needEmbedding = true): number | null {
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
