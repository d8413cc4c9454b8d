// `@idv/verification/tooling`: everything the corpus, the calibration, the ops CLI and the benchmarks reach
// for (the readers run one at a time, the quality measures and the recapture model, the angled front's
// outline, the hashes), beside the services' entry. The services use `@idv/verification` (src/index.ts).
// Everything of `@idv/verification/pure` (src/pure.ts), then the image side.
export * from './pure';
// The image side (docs/design.md "Verification engine"): uploads made safe, the readers, and the one pipeline
// the service's workers, the CLI and the benchmark run.
export * from './image/prepare-upload';
export { sniffImageType, type SniffedType } from './image/sniff';
export * from './pipeline/quality-port';
export * from './pipeline/read-side';
export { startEngines, stopEngines } from './engines';
export * from './pipeline/read-document';
export * from './pipeline/front-print';
export { perceptualHash, hashDistance } from './pipeline/perceptual-hash';
export type { VerificationTask, VerificationResult } from './worker';
// Image quality and recapture detection (src/quality), the measures behind the pipeline's quality port.
export {
  assessQuality as assessImageQuality,
  assessPixels as assessImagePixels,
  QUALITY_LIMITS,
  SCREEN_MODEL,
  SCREEN_FEATURE_NAMES,
  screenScore,
  screenVerdict,
  type QualityReport,
  type QualityOptions,
  type ScreenFeatureName,
  type ScreenFeatures,
  type ScreenModel,
  type ScreenVerdict,
  type RawImage as QualityRawImage,
  type Region as QualityRegion,
} from './quality';
// The angled front's checks: the card's outline in a photo and how its shape changed between two photos.
export { findCardOutline, type CardOutline } from './pipeline/card-outline';
export { outlineChange } from './checks/outline-change';
export { judgeAngledFront, type AngledFrontJudgement, type AngledFrontVerdict } from './checks/angled-front';
export { ANGLED_FRONT_LIMITS } from './calibration/angled-front';
export { perceptualSignature, signatureDistance } from './pipeline/perceptual-hash';
