// Faces (issue 11): detection, head pose, embeddings and comparison on human's models (wasm backend),
// the active liveness challenge and its verdict. No HTTP, no SQL; the service runs it in its worker pool.
export * from './errors';
export * from './limits';
export { decodeImage, type RgbImage } from './decode';
export { faceEngine, startEngines, stopEngines } from './engines';
export { FaceEngine, ENGINE_CONFIG, type DetectedFace, type FaceAnalysis, type FaceBox, type HeadPose } from './engine';
export * from './compare';
export * from './challenge';
export * from './liveness';
export * from './spoof';
export * from './pipeline';
export type { FaceTask, FaceTaskResult } from './worker';
export { pooledFrameWork, type FrameWork, type FrameTask, type FrameTaskResult } from './frame-work';
