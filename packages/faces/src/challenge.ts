import { randomBytes, randomInt } from 'node:crypto';
import type { HeadPose } from './engine';
import { POSE_LIMITS } from './calibration/thresholds';

export { POSE_LIMITS } from './calibration/thresholds';

/**
 * The active challenge: poses the person holds in an order the server chose at random for this attempt,
 * bound to the attempt by a single-use nonce, with a window for the frames' capture and a limit on its
 * age when they arrive (`captureTiming`). Pure apart from the randomness, which a test can replace.
 * Durations are parameters: the caller applies TIME_SCALE.
 */
export const POSE_STEPS = ['straight', 'left', 'right'] as const;
export type PoseStep = (typeof POSE_STEPS)[number];

export interface LivenessChallenge {
  /** Single use; the caller stores used nonces and says whether this one was (see `judgeLiveness`). */
  nonce: string;
  /** The attempt the challenge was issued for (the flow's session, step and attempt number, for example). */
  attemptId: string;
  steps: PoseStep[];
  /** Epoch ms, server clock. */
  issuedAt: number;
  /** Epoch ms, server clock: frames arriving later answer a challenge issued too long ago to be plausible. */
  expiresAt: number;
  /** The longest the frames may span, from the first one's capture to the last one's (their own times). */
  windowMs: number;
  /** How long each pose must be held, measured between the first and last frame that show it. */
  holdMs: number;
}

export interface ChallengeOptions {
  attemptId: string;
  now: number;
  /** The longest the frames may span, first capture to last; the caller scales it by TIME_SCALE. */
  windowMs: number;
  /**
   * How long after issue the frames may still arrive: the window plus the time to start the camera and to
   * send them. By default the window itself (a caller whose frames arrive as they are taken).
   */
  maxAgeMs?: number;
  holdMs: number;
  /** Which poses to ask for; all three by default, in a random order. */
  steps?: readonly PoseStep[];
  /** For tests: a source of integers in [0, max). */
  randomInt?: (max: number) => number;
  /** For tests: the nonce. */
  nonce?: string;
}

export function createChallenge(options: ChallengeOptions): LivenessChallenge {
  const pick = options.randomInt ?? ((max: number) => randomInt(max));
  const steps = [...(options.steps ?? POSE_STEPS)];
  for (let index = steps.length - 1; index > 0; index -= 1) {
    const other = pick(index + 1);
    [steps[index], steps[other]] = [steps[other] as PoseStep, steps[index] as PoseStep];
  }
  return {
    nonce: options.nonce ?? randomBytes(18).toString('base64url'),
    attemptId: options.attemptId,
    steps,
    issuedAt: options.now,
    expiresAt: options.now + (options.maxAgeMs ?? options.windowMs),
    windowMs: options.windowMs,
    holdMs: options.holdMs,
  };
}

/** Why frames came too late: their own span is longer than the window, or the challenge is too old. */
export type ExpiryCause = 'span_over_window' | 'challenge_too_old';

export type CaptureTiming =
  | { kind: 'in_time'; spanMs: number }
  | { kind: 'received_before_issue' }
  | { kind: 'times_invalid'; frameIndex: number; message: string }
  | { kind: 'expired'; cause: ExpiryCause; message: string };

/**
 * When an attempt's frames were taken, and whether that is in time. Each frame carries the milliseconds
 * since the challenge was issued, as the page estimated them (it errs early, never late). Those times are
 * the sender's word, so they are believed only within what the server saw: none before the challenge was
 * issued (below 0), none after the frames arrived (above `receivedAt - issuedAt`), strictly increasing.
 * The window is measured on them, first frame to last: an upload that is merely slow is in time. What
 * bounds the whole, whatever the times claim, is `expiresAt`: the latest the frames may arrive.
 */
export function captureTiming(
  challenge: Pick<LivenessChallenge, 'issuedAt' | 'expiresAt' | 'windowMs'>,
  receivedAt: number,
  frameTimes: readonly number[],
): CaptureTiming {
  if (receivedAt < challenge.issuedAt) return { kind: 'received_before_issue' };
  if (receivedAt > challenge.expiresAt)
    return {
      kind: 'expired',
      cause: 'challenge_too_old',
      message: `frames received ${receivedAt - challenge.expiresAt} ms after the challenge's last moment`,
    };
  const elapsed = receivedAt - challenge.issuedAt;
  const implausible = frameTimes.findIndex(
    (atMs, index) => !Number.isFinite(atMs) || atMs < 0 || atMs > elapsed || (index > 0 && atMs <= (frameTimes[index - 1] ?? 0)),
  );
  if (implausible >= 0)
    return {
      kind: 'times_invalid',
      frameIndex: implausible,
      message: `frame ${implausible} is out of order or outside the ${elapsed} ms since the challenge`,
    };
  const spanMs = frameTimes.length === 0 ? 0 : (frameTimes[frameTimes.length - 1] ?? 0) - (frameTimes[0] ?? 0);
  if (spanMs > challenge.windowMs)
    return {
      kind: 'expired',
      cause: 'span_over_window',
      message: `frames span ${spanMs} ms, the window is ${challenge.windowMs} ms`,
    };
  return { kind: 'in_time', spanMs };
}

export type PoseClass = PoseStep | 'between';

/**
 * "left" is the person's own left, in frames as the camera captured them (not mirrored): the model's yaw
 * is positive when the person turns to their right.
 */
export function classifyPose(pose: HeadPose, limits: typeof POSE_LIMITS = POSE_LIMITS): PoseClass {
  if (Math.abs(pose.pitch) > limits.maxPitch) return 'between';
  if (Math.abs(pose.yaw) <= limits.straightMaxYaw) return 'straight';
  if (pose.yaw <= -limits.turnMinYaw) return 'left';
  if (pose.yaw >= limits.turnMinYaw) return 'right';
  return 'between';
}

export function parseChallengeSteps(value: string): PoseStep[] | null {
  const steps = value
    .split(',')
    .map((step) => step.trim())
    .filter((step) => step !== '');
  if (steps.length === 0) return null;
  return steps.every((step) => (POSE_STEPS as readonly string[]).includes(step)) ? (steps as PoseStep[]) : null;
}
