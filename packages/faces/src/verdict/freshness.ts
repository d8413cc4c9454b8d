import { captureTiming, type LivenessChallenge } from '../challenge';
import { FRAME_LIMITS } from '../limits';
import type { LivenessContext, LivenessDetail, LivenessSubmission } from './types';

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
