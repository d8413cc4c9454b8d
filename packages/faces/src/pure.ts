// The parts of @idv/faces that load no model and no native module: the input limits, the challenge and its
// timing, the comparison thresholds, the errors and the verdict's types. A service's request path imports
// these (`@idv/faces/pure`); the models load only where `@idv/faces` itself is imported (the worker threads).
export * from './errors';
export * from './limits';
export * from './challenge';
export { FACE_MATCH_THRESHOLD, FRAME_CONSISTENCY_THRESHOLD, faceSimilarity, type FaceComparison } from './compare';
export type { LivenessDetail, LivenessReason, LivenessVerdict, FrameRecapture } from './liveness';
