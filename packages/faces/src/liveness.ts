import type { LivenessChallenge } from './challenge';
import {
  judgeFacesSeen,
  judgeFrameTimes,
  judgeFreshness,
  judgeIdentity,
  judgeSequence,
  judgeSpoof,
  measureIdentity,
  measureSpoof,
  startJudgement,
  verdictOf,
  type Stage,
} from './verdict/stages';
import type { LivenessContext, LivenessSubmission, LivenessVerdict } from './verdict/types';

/**
 * The liveness verdict, as a pure function of the challenge, what the models saw in each frame and
 * whether the nonce was used before. No I/O, no clock: everything time-related comes in as data. Its
 * stages, in order, are in src/verdict/stages.ts; the thresholds they apply in src/calibration/.
 */
export * from './verdict/types';
export { REPLAY_INPUT_NAMES, REPLAY_MODEL, replayInput, replayScore } from './verdict/replay';
export type { ReplayInput, ReplayInputName, ReplayModel } from './verdict/replay';
export { heldPoses, keyFrames } from './verdict/poses';
export { freshnessFailure, type FreshnessFailure } from './verdict/freshness';
export { OUTLINE_LIMIT, SCENE_CHANGE_LIMIT, SPOOF_LIMITS } from './calibration/thresholds';

export const LIVENESS_STAGES: readonly Stage[] = [
  judgeFreshness,
  judgeFacesSeen,
  judgeFrameTimes,
  judgeSequence,
  measureIdentity,
  measureSpoof,
  judgeIdentity,
  judgeSpoof,
];

export function judgeLiveness(
  challenge: LivenessChallenge,
  submission: LivenessSubmission,
  context: LivenessContext,
): LivenessVerdict {
  const judgement = startJudgement(challenge, submission, context);
  for (const stage of LIVENESS_STAGES) {
    const verdict = stage(judgement);
    if (verdict !== null) return verdict;
  }
  return verdictOf(judgement, null, 'passed', `held ${judgement.observed.join(',')}`);
}
