export { MIN_FACE_PX } from './calibration/thresholds';
/**
 * Input limits. The page captures a few frames per second, downscaled to about 640 px, for a challenge of
 * three held poses: about 3 s of frames per step at 3 fps is 9 per step, 27 in all, so 30 leaves room
 * and still bounds a job's CPU (≈ 0.3 s per frame here, docs/faces.md) and memory.
 */
export const FRAME_LIMITS = {
  maxFrames: 30,
  /** A 640 px JPEG is 40–120 kB; a full-size phone photo (the upload fallback) is 2–6 MB. */
  maxFrameBytes: 8 * 1024 * 1024,
  /** All frames of one attempt together. */
  maxTotalBytes: 24 * 1024 * 1024,
} as const;

export interface ImageLimits {
  maxBytes: number;
  maxPixels: number;
  minSide: number;
  maxSide: number;
}

export const IMAGE_LIMITS: Readonly<ImageLimits> = {
  maxBytes: FRAME_LIMITS.maxFrameBytes,
  // A 40 MP phone photo is the largest genuine capture; a decompression bomb claims far more.
  maxPixels: 40_000_000,
  /** Below this a face cannot be both found and embedded (the embedding model's input is 224 px). */
  minSide: 64,
  /**
   * The long side the image is analysed at. The recapture model of @idv/verification was calibrated at
   * 1600 px; the face models crop from the full image, so a larger input costs little for them.
   */
  maxSide: 1600,
};
