import type { DetectedFace, FaceAnalysis, FaceCrop } from './engine';
import type { FrameRecapture } from './liveness';
import type { SceneLayout } from './scene';
import type { SpoofFeatures } from './spoof';

/** What the face engine found in one decoded image, with the image's size before it was fitted. */
export interface ImageFaces extends FaceAnalysis {
  sourceWidth: number;
  sourceHeight: number;
  decodeMs: number;
}

export interface AnalysedFrame {
  index: number;
  width: number;
  height: number;
  faces: DetectedFace[];
  recapture: FrameRecapture | null;
  /** The face frame's own replay cues (src/spoof.ts), when the frame has exactly one face. */
  spoof: SpoofFeatures | null;
  /** What surrounds the face (src/scene.ts), when the frame has exactly one face. */
  scene: SceneLayout | null;
  /**
   * A first pass without embeddings keeps the crop of a frame's one face, so that its key frames are
   * embedded from it (`FrameWork.embedCrops`); `checkLiveness` drops the crops once they served.
   */
  crop?: FaceCrop | null;
  ms: { decode: number; faces: number; recapture: number; spoof: number };
}
