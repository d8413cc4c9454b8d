// `@idv/verification`: what the services use (docs/design.md "Verification engine"). The flow-runner sends
// each side to the worker (`@idv/verification/worker`: `VerificationTask` in, `VerificationResult` out),
// makes uploads safe before storing them, combines the sides' readings into the document's checks and
// judges the angled front; the faces package asks for the quality of a frame. The document model, the
// parsers and the checks without images are `@idv/verification/pure`; what the corpus, the ops CLI and
// the benchmarks need besides is `@idv/verification/tooling`.
export type { DocumentFields, DocumentReasonCode, DocumentType, FieldName, Side } from './model';
export {
  DEFAULT_UPLOAD_LIMITS,
  isUploadRefusal,
  prepareUpload,
  type PreparedImage,
  type UploadLimits,
  type UploadRefusal,
  type UploadRefusalReason,
} from './image/prepare-upload';
export { sniffImageType, type SniffedType } from './image/sniff';
export { barcodeReading, blankSideReading, zoneReading, type SideReading, type SideProblem } from './pipeline/read-side';
export { settledPrintOf, withSettledPrint, type SettledPrint } from './pipeline/front-print';
export { combineSides, type DocumentCheck, type DocumentReading, type ReadDocumentOptions } from './pipeline/read-document';
export { startEngines, stopEngines } from './engines';
export type { VerificationTask, VerificationResult } from './worker';
export { assessQuality as assessImageQuality, type QualityReport, type ScreenVerdict } from './quality';
export type { CardOutline } from './pipeline/card-outline';
export { judgeAngledFront, type AngledFrontJudgement, type AngledFrontVerdict } from './checks/angled-front';
export { perceptualSignature, signatureDistance } from './pipeline/perceptual-hash';
