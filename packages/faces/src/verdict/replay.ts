import fitted from '../calibration/replay-model.json';
import { SPOOF_FEATURE_NAMES, type SpoofFeatureName } from '../spoof';
import type { LivenessFrame } from './types';

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
