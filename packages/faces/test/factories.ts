import { createChallenge, type LivenessChallenge, type PoseStep } from '../src/challenge';
import type { DetectedFace } from '../src/engine';
import type { LivenessFrame, LivenessSubmission } from '../src/liveness';
import type { SceneLayout } from '../src/scene';

/**
 * An embedding on the scale of human's `faceres` (1024 non-negative values, norm ≈ 10–14): each person
 * lights a different half of the values, so two persons land at similarity ≈ 0.2 and one person with a
 * little `noise` stays close to 1.
 */
export function buildEmbedding(person: number, noise = 0): number[] {
  let state = (person + 1) * 2654435761;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return Array.from({ length: 1024 }, (_, index) => {
    const value = next() < 0.5 ? 0.62 : 0;
    return Math.max(0, value + noise * Math.sin(index * 12.9898 + person) * 0.1);
  });
}

export function buildFace(overrides: Partial<DetectedFace> = {}): DetectedFace {
  return {
    box: { x: 100, y: 80, width: 240, height: 240 },
    score: 0.98,
    pose: { yaw: 0, pitch: 4, roll: 1 },
    embedding: buildEmbedding(1),
    antispoof: 0.7,
    liveness: 0.95,
    ...overrides,
  };
}

const YAW: Record<PoseStep, number> = { straight: 2, left: -30, right: 30 };

export function buildFrame(pose: PoseStep | number, atMs: number, overrides: Partial<LivenessFrame> = {}): LivenessFrame {
  const yaw = typeof pose === 'number' ? pose : YAW[pose];
  return {
    atMs,
    faces: [buildFace({ pose: { yaw, pitch: 3, roll: 0 } })],
    recapture: { score: 0.2, detected: false, judged: true, evidence: null, periodic: false },
    ...overrides,
  };
}

export const ISSUED_AT = 1_800_000_000_000;

export function buildChallenge(steps: PoseStep[], overrides: Partial<LivenessChallenge> = {}): LivenessChallenge {
  return {
    ...createChallenge({ attemptId: 'vs_test:face:1', now: ISSUED_AT, windowMs: 20_000, holdMs: 400, steps, nonce: 'nonce-1' }),
    steps,
    ...overrides,
  };
}

/** Frames three a pose, 250 ms apart, each pose in the given order. */
export function framesFor(poses: (PoseStep | number)[], perPose = 3, stepMs = 250): LivenessFrame[] {
  return poses.flatMap((pose, poseIndex) =>
    Array.from({ length: perPose }, (_, index) => buildFrame(pose, 500 + (poseIndex * perPose + index) * stepMs)),
  );
}

export function buildSubmission(frames: LivenessFrame[], overrides: Partial<LivenessSubmission> = {}): LivenessSubmission {
  return { nonce: 'nonce-1', attemptId: 'vs_test:face:1', receivedAt: ISSUED_AT + 8_000, frames, ...overrides };
}

/** A scene layout (src/scene.ts) with structure in every channel; another `room` is an unrelated one. */
export function buildScene(room: number): SceneLayout {
  const cells = Array.from({ length: 48 }, (_, cell) => {
    const wave = (channel: number) => Math.sin(cell * (0.7 + room * 1.3) + channel * (1 + room));
    return [0.5 + 0.3 * wave(0), 0.05 * wave(1), 0.05 * wave(2), 1 + 0.3 * wave(0)];
  });
  return { columns: 6, rows: 8, cells };
}
