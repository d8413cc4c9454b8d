import type { ScreenVerdict } from '@idv/verification';
import type { PoseClass, PoseStep } from '../challenge';
import type { DetectedFace, HeadPose } from '../engine';
import type { SceneLayout } from '../scene';
import type { SpoofFeatures } from '../spoof';

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
