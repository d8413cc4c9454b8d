import type { ArtefactId } from '@idv/contracts';
import type { LivenessChallenge, LivenessDetail, LivenessReason, PoseStep } from '@idv/faces/pure';

/** The face step's state and judgement types, apart from its logic so `types.ts` can name them without a circle. */

/** How the frames of an attempt were taken: the camera challenge, or the two-photo fallback (passive checks). */
export type FaceMethod = 'camera' | 'upload';

/** A challenge as kept in the flow's state until its frames arrive; removed when they do (single use). */
export interface StoredChallenge extends LivenessChallenge {
  method: FaceMethod;
}

/** What the worker's judgement said of an attempt: no image, no embedding, only scores and names. */
export interface FaceEvidence {
  method: FaceMethod;
  attempt: number;
  passed: boolean;
  reason: FaceReason | null;
  /** The liveness library's precise detail (`sequence_mismatch`, `recapture`…), for support. */
  detail: LivenessDetail | 'document_photo_missing' | 'mismatch' | 'passed';
  observed: PoseStep[];
  challenge: PoseStep[];
  spoof: { recaptureFlagged: number; recaptureJudged: number; antispoofMean: number | null; livenessMean: number | null };
  minSimilarity: number | null;
  /** Against the document's portrait, when the step compares with it. */
  comparison: { similarity: number | null; threshold: number; match: boolean } | null;
}

export type FaceReason = LivenessReason | 'face_mismatch' | 'face_document_photo_missing';

/** The advice after frames that came too late: the first time, and every time after. */
export type FaceExpiry = 'expired' | 'expired_again';

/** The face step's progress, inside the step's state. */
export interface FaceProgress {
  /** Frame sets sent and judged (or being judged): each counts against `maxAttempts`. */
  attempts: number;
  challenge?: StoredChallenge;
  /** The frames of the current attempt are in the job queue. */
  judging?: { artefactId: ArtefactId; method: FaceMethod };
  /**
   * Why the previous attempt failed, for the page's advice; `retry` when it could not be judged at all;
   * `expired`, `expired_again` when its frames came too late.
   */
  last?: FaceReason | 'retry' | FaceExpiry;
  /** Frame sets that came too late: never judged, no attempt used (docs/decisions.md). */
  expiries?: number;
  /** One entry per judged attempt, the last one deciding. */
  evidence?: FaceEvidence[];
}

/**
 * What the worker made of an attempt's frames (the job's reading, stored once per artefact). `unjudged`
 * when the frames could not be judged (an image the models refused, or the engine failed): the attempt
 * does not count and the person is asked to try again.
 */
export type FaceJudgement =
  | {
      kind: 'judged';
      method: FaceMethod;
      liveness: {
        passed: boolean;
        reason: LivenessReason | null;
        detail: LivenessDetail;
        observed: PoseStep[];
        challenge: PoseStep[];
        minSimilarity: number | null;
        spoof: FaceEvidence['spoof'];
      };
      /** null: the step does not compare, or liveness failed first. */
      document: null | { kind: 'missing' } | { kind: 'compared'; similarity: number | null; threshold: number; match: boolean };
      selfieArtefactId: string | null;
    }
  | { kind: 'unjudged'; problem: 'frames_unreadable' | 'engine_failed' };

/** What the submission stages for the job: the frames and everything needed to judge them later, anywhere. */
export interface FaceFrameSet {
  challenge: StoredChallenge;
  nonce: string;
  receivedAt: number;
  frames: { image: Buffer; atMs: number }[];
  compareWithDocument: boolean;
  /** The accepted front of the document step before this one (its portrait is kept beside it), or null. */
  documentFront: ArtefactId | null;
}

/** Why a frame set was refused before judging: costs no attempt, the page says what to do. */
export type FrameRefusal =
  | 'no_frames'
  | 'too_many_frames'
  | 'too_large'
  | 'unsupported'
  | 'heic'
  | 'too_small'
  | 'too_many_pixels'
  | 'corrupt'
  | 'times_invalid'
  | 'stale_nonce';

export type PreparedFrame = { ok: true; jpeg: Buffer } | { ok: false; reason: FrameRefusal };
