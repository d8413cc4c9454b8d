import { timingSafeEqual } from 'node:crypto';
import type { ArtefactId, FaceStepSchema } from '@idv/contracts';
// The pure parts of @idv/faces only: its index loads tfjs, which belongs in the worker threads.
import { captureTiming, createChallenge, FRAME_LIMITS } from '@idv/faces/pure';
import type { z } from 'zod';
import { REASON_CODES, type ReasonCode } from '../reason-codes';
import type { StepView } from '../view';
import type { StepContext, StepModule, StepOutcome, StepState } from './types';
import type {
  FaceEvidence,
  FaceJudgement,
  FaceMethod,
  FaceProgress,
  FaceReason,
  FrameRefusal,
  StoredChallenge,
} from './face-state';

type FaceStep = z.infer<typeof FaceStepSchema>;

/**
 * Challenge timings before TIME_SCALE. The camera challenge's window bounds its frames' span, first frame
 * to last, by their own times (`captureTiming` of @idv/faces): three held poses take about 8 s, so a minute
 * is generous for a person. Sending them is not in the window: a phone on a slow network takes tens of
 * seconds for 1–2 MB of frames. What bounds the whole attempt, issue to arrival, whatever the frames'
 * times claim, is `cameraMaxAgeMs`: opening the page and the camera, the poses and a slow upload, and
 * still short for a replay someone has to prepare once the order is known (docs/decisions.md). The
 * two-photo fallback takes two photos with the phone's own camera app, so it gets longer.
 */
export const FACE_TIMINGS = {
  cameraWindowMs: 60_000,
  cameraMaxAgeMs: 3 * 60_000,
  /** Each pose is held at least this long (first to last frame showing it). */
  holdMs: 600,
  uploadWindowMs: 15 * 60_000,
} as const;

const progressOf = (state: StepState): FaceProgress => (state.face ??= { attempts: 0 });

const sameText = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/** Parses `at_ms`: comma-separated milliseconds since the challenge was issued, one per frame, in order. */
export function parseFrameTimes(value: string | undefined, count: number): number[] | null {
  if (value === undefined) return null;
  const parts = value.split(',').map((part) => part.trim());
  if (parts.length !== count || parts.some((part) => !/^\d{1,7}$/.test(part))) return null;
  return parts.map(Number);
}

/** A challenge for the next attempt: the camera's three poses in a random order, or the fallback's straight-then-turned. */
export function newChallenge(
  ctx: Pick<StepContext, 'sessionId' | 'timeScale' | 'now'>,
  stepId: string,
  attempt: number,
  method: FaceMethod,
  pick?: (max: number) => number,
): StoredChallenge {
  const attemptId = `${ctx.sessionId}:${stepId}:${attempt}`;
  const now = ctx.now.getTime();
  if (method === 'camera') {
    return {
      ...createChallenge({
        attemptId,
        now,
        windowMs: FACE_TIMINGS.cameraWindowMs * ctx.timeScale,
        maxAgeMs: FACE_TIMINGS.cameraMaxAgeMs * ctx.timeScale,
        holdMs: Math.round(FACE_TIMINGS.holdMs * ctx.timeScale),
        ...(pick ? { randomInt: pick } : {}),
      }),
      method,
    };
  }
  // One photo a pose, so no hold; the turn's side is the server's choice like the camera's order.
  const turn = createChallenge({
    attemptId,
    now,
    windowMs: 0,
    holdMs: 0,
    steps: ['left', 'right'],
    ...(pick ? { randomInt: pick } : {}),
  }).steps[0]!;
  return {
    ...createChallenge({ attemptId, now, windowMs: FACE_TIMINGS.uploadWindowMs * ctx.timeScale, holdMs: 0, steps: ['straight'] }),
    steps: ['straight', turn],
    method,
  };
}

/**
 * Frames that came too late are never judged and use no attempt: the challenge goes with them (its nonce
 * was used), and the page asks for a new one. Not even the second time, because an attempt bounds the
 * tries at the judge, and these reached none; from the second one the advice names the ways around a slow
 * connection (docs/decisions.md).
 */
function noteExpiry(progress: FaceProgress): StepOutcome {
  delete progress.challenge;
  progress.expiries = (progress.expiries ?? 0) + 1;
  progress.last = progress.expiries > 1 ? 'expired_again' : 'expired';
  return { kind: 'stay' };
}

/**
 * Applies the worker's judgement of an attempt. A judgement of frames that are no longer the ones being
 * judged changes nothing. Frames the judge found too late (a challenge stored before its window was
 * measured on the frames) are an expiry, not a failed attempt. Liveness first, then the document: a
 * missing portrait fails the step at once (another attempt cannot bring it), a mismatch or a liveness
 * failure allows another attempt until `maxAttempts`, and the last one fails the step with its own reason.
 */
export function applyFaceJudgement(
  step: FaceStep,
  state: StepState,
  artefactId: ArtefactId,
  judgement: FaceJudgement,
): StepOutcome | { kind: 'stale' } {
  const progress = progressOf(state);
  if (progress.judging?.artefactId !== artefactId) return { kind: 'stale' };
  delete progress.judging;
  if (judgement.kind === 'unjudged') {
    // Not the person's fault (or not provably): the attempt is given back.
    progress.attempts = Math.max(0, progress.attempts - 1);
    progress.last = 'retry';
    return { kind: 'stay' };
  }
  const { liveness, document } = judgement;
  if (liveness.detail === 'expired') {
    progress.attempts = Math.max(0, progress.attempts - 1);
    return noteExpiry(progress);
  }
  let reason: FaceReason | null = liveness.passed ? null : (liveness.reason ?? 'liveness_challenge_failed');
  let detail: FaceEvidence['detail'] = liveness.detail;
  if (reason === null && document?.kind === 'missing') {
    reason = 'face_document_photo_missing';
    detail = 'document_photo_missing';
  } else if (reason === null && document?.kind === 'compared' && !document.match) {
    // No face in the document's portrait is a missing photo, not a different person.
    reason = document.similarity === null ? 'face_document_photo_missing' : 'face_mismatch';
    detail = document.similarity === null ? 'document_photo_missing' : 'mismatch';
  }
  (progress.evidence ??= []).push({
    method: judgement.method,
    attempt: progress.attempts,
    passed: reason === null,
    reason,
    detail,
    observed: liveness.observed,
    challenge: liveness.challenge,
    spoof: liveness.spoof,
    minSimilarity: liveness.minSimilarity,
    comparison:
      document?.kind === 'compared'
        ? { similarity: document.similarity, threshold: document.threshold, match: document.match }
        : null,
  });
  if (reason === null) {
    delete progress.last;
    return { kind: 'passed' };
  }
  progress.last = reason;
  if (reason === 'face_document_photo_missing' || progress.attempts >= step.maxAttempts) {
    return { kind: 'failed', reason: REASON_CODES[FACE_REASON_KEYS[reason]] };
  }
  return { kind: 'stay' };
}

const FACE_REASON_KEYS: Record<FaceReason, keyof typeof REASON_CODES> = {
  face_not_found: 'faceNotFound',
  face_multiple: 'faceMultiple',
  liveness_challenge_failed: 'livenessChallengeFailed',
  liveness_spoof_detected: 'livenessSpoofDetected',
  face_mismatch: 'faceMismatch',
  face_document_photo_missing: 'faceDocumentPhotoMissing',
};

export const faceReasonCode = (reason: FaceReason): ReasonCode => REASON_CODES[FACE_REASON_KEYS[reason]];

/**
 * The pages and submissions of `face_liveness`. Every attempt starts with a POST (`start` or
 * `start_upload`) that stores a new challenge; its page carries the nonce the frames must come back
 * with (`frames`, multipart). The frames are judged by the worker pool; meanwhile the page refreshes.
 */
export const faceStep: StepModule<FaceStep> = {
  type: 'face_liveness',
  render(ctx, feedback) {
    const t = ctx.t.face;
    const progress: FaceProgress = structuredClone(ctx.state.face) ?? { attempts: 0 };
    if (progress.judging) {
      return {
        title: t.processingTitle,
        refreshSeconds: 2,
        body: {
          kind: 'waiting',
          ...(feedback.alert ? { alert: feedback.alert } : {}),
          text: t.processingBody,
          refresh: t.refresh,
        },
      };
    }
    const advice = progress.last ? t.reasons[progress.last] : undefined;
    const alert = feedback.alert ?? advice;
    const attemptsLeft = progress.attempts > 0 ? ctx.step.maxAttempts - progress.attempts : null;
    const challenge = progress.challenge;
    if (challenge?.method === 'camera') return cameraView(ctx, challenge, alert, attemptsLeft);
    if (challenge?.method === 'upload') {
      return {
        title: t.uploadTitle,
        offersHandover: true,
        body: {
          kind: 'face_upload',
          alert,
          attemptsLeft,
          nonce: challenge.nonce,
          steps: challenge.steps,
          turn: challenge.steps[1] === 'right' ? 'right' : 'left',
        },
      };
    }
    return {
      title: t.title,
      offersHandover: true,
      body: { kind: 'face_intro', alert, attemptsLeft, allowUpload: ctx.step.allowUpload },
    };
  },

  async accept(ctx, input) {
    const t = ctx.t.face;
    const progress = progressOf(ctx.state);
    // Frames sent again while the first ones are judged (a double submit, a replay) are refused below:
    // their nonce went with the first.
    if (progress.judging && input.action !== 'frames' && input.action !== 'sample') return { kind: 'stay' };
    if (input.action === 'start' || (input.action === 'start_upload' && ctx.step.allowUpload)) {
      if (progress.attempts >= ctx.step.maxAttempts) return { kind: 'stay' };
      progress.challenge = newChallenge(ctx, ctx.step.id, progress.attempts + 1, input.action === 'start' ? 'camera' : 'upload');
      delete progress.last;
      return { kind: 'stay' };
    }
    if (input.action === 'restart') {
      delete progress.challenge;
      return { kind: 'stay' };
    }
    if (input.action !== 'frames' && !(input.action === 'sample' && ctx.mode === 'test')) return { kind: 'stay' };

    const challenge = progress.challenge;
    // No challenge, another one, or this one's frames already sent (the nonce is removed with them):
    // refused before anything is read, and without costing an attempt.
    if (!challenge || typeof input.nonce !== 'string' || !sameText(input.nonce, challenge.nonce)) {
      return { kind: 'stay', feedback: { alert: t.refusals.stale_nonce } };
    }
    const now = ctx.now.getTime();
    let frames: { image: Buffer; atMs: number }[];
    if (input.action === 'sample') {
      const sample = await ctx.ports.faceSample(input.sample ?? '', challenge, now);
      if (!sample) return { kind: 'stay', feedback: { alert: t.refusals.no_frames } };
      const timing = captureTiming(
        challenge,
        now,
        sample.map((frame) => frame.atMs),
      );
      if (timing.kind === 'expired') return noteExpiry(progress);
      frames = sample;
    } else {
      const checked = await checkFrames(ctx, challenge, input.at_ms, now);
      if (checked === 'expired') return noteExpiry(progress);
      if (typeof checked === 'string') return { kind: 'stay', feedback: { alert: t.refusals[checked] } };
      frames = checked;
    }
    // The test-mode sequences are public: in live mode frames that are theirs stand for no one.
    if (ctx.mode === 'live' && (await ctx.ports.isTestSample(frames.map((frame) => frame.image)))) {
      return { kind: 'failed', reason: REASON_CODES.testSampleDetected };
    }
    progress.attempts += 1;
    delete progress.challenge;
    const artefactId = ctx.ports.stageFaceFrames({
      challenge,
      nonce: input.nonce,
      receivedAt: now,
      frames,
      compareWithDocument: ctx.step.compareWithDocument === true,
      documentFront: ctx.documentFront(),
    });
    progress.judging = { artefactId, method: challenge.method };
    return { kind: 'stay' };
  },
};

/**
 * The frames of a submission, checked before they are queued: count, times (frames that came too late are
 * `expired` before any image is read), then bytes, type and size.
 */
async function checkFrames(
  ctx: StepContext<FaceStep>,
  challenge: StoredChallenge,
  atMs: string | undefined,
  receivedAt: number,
): Promise<FrameRefusal | 'expired' | { image: Buffer; atMs: number }[]> {
  const upload = ctx.frames;
  if (!upload || upload.files.length === 0) return 'no_frames';
  if (upload.overflow || upload.files.length > FRAME_LIMITS.maxFrames) return 'too_many_frames';
  if (challenge.method === 'upload' && upload.files.length !== challenge.steps.length) return 'no_frames';
  // The fallback's photos have no timing of their own: one after the other is all the judge needs.
  const times =
    challenge.method === 'upload' ? upload.files.map((_, index) => index) : parseFrameTimes(atMs, upload.files.length);
  if (!times) return 'times_invalid';
  // Implausible times are the judge's to refuse (they use the attempt): only lateness is settled here.
  if (captureTiming(challenge, receivedAt, times).kind === 'expired') return 'expired';
  const prepared: Buffer[] = [];
  for (const file of upload.files) {
    const frame = await ctx.ports.prepareFrame(file);
    if (!frame.ok) return frame.reason;
    prepared.push(frame.jpeg);
  }
  return prepared.map((image, index) => ({ image, atMs: times[index]! }));
}

/**
 * The challenge page's camera script (served by the pages' routes, under their CSP). It enhances the page:
 * without it, or without a camera, the page says a camera is needed and offers the fallback.
 */
export const FACE_CAPTURE_SCRIPT_PATH = '/assets/face-capture.js';

function cameraView(
  ctx: StepContext<FaceStep>,
  challenge: StoredChallenge,
  alert: string | undefined,
  attemptsLeft: number | null,
): StepView {
  const samples = ctx.mode === 'test' ? ctx.faceSamples() : [];
  return {
    title: ctx.t.face.challengeTitle,
    offersHandover: true,
    body: {
      kind: 'face_camera',
      alert,
      attemptsLeft,
      allowUpload: ctx.step.allowUpload,
      challenge: {
        nonce: challenge.nonce,
        steps: challenge.steps,
        holdMs: challenge.holdMs,
        windowMs: challenge.windowMs,
        issuedAgoMs: Math.max(0, ctx.now.getTime() - challenge.issuedAt),
        expiresInMs: Math.max(0, challenge.expiresAt - ctx.now.getTime()),
        method: challenge.method,
      },
      limits: {
        maxFrames: FRAME_LIMITS.maxFrames,
        maxFrameBytes: FRAME_LIMITS.maxFrameBytes,
        maxTotalBytes: FRAME_LIMITS.maxTotalBytes,
      },
      samples: samples.length > 0 ? { copy: 'face', hidden: { nonce: challenge.nonce }, samples } : null,
    },
  };
}
