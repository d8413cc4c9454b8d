/**
 * Every reason code the flow-runner sends in `result.reason_codes` (documented in docs/api.md "Reason codes").
 * A rejected session carries the code of the step that failed and, when that step was an option of a
 * choice that can no longer reach its minimum, `choice_not_satisfied` as well.
 */
export const REASON_CODES = {
  consentDeclined: 'consent_declined',
  emailCodeAttemptsExceeded: 'email_code_attempts_exceeded',
  emailCodeExpired: 'email_code_expired',
  phoneCodeAttemptsExceeded: 'phone_code_attempts_exceeded',
  phoneCodeExpired: 'phone_code_expired',
  choiceNotSatisfied: 'choice_not_satisfied',
  stepUnavailable: 'step_unavailable',
  documentUnreadable: 'document_unreadable',
  documentTypeMismatch: 'document_type_mismatch',
  documentExpired: 'document_expired',
  documentDataMismatch: 'document_data_mismatch',
  documentMrzInvalid: 'document_mrz_invalid',
  documentCuilInvalid: 'document_cuil_invalid',
  documentScreenDetected: 'document_screen_detected',
  documentAngleMismatch: 'document_angle_mismatch',
  documentRegistryMismatch: 'document_registry_mismatch',
  documentRegistryUnavailable: 'document_registry_unavailable',
  faceNotFound: 'face_not_found',
  faceMultiple: 'face_multiple',
  livenessChallengeFailed: 'liveness_challenge_failed',
  livenessSpoofDetected: 'liveness_spoof_detected',
  faceMismatch: 'face_mismatch',
  faceDocumentPhotoMissing: 'face_document_photo_missing',
  /** Live mode: a document photo or a face frame is one of the public test-mode samples (or a copy). */
  testSampleDetected: 'test_sample_detected',
} as const;

export type ReasonCode = (typeof REASON_CODES)[keyof typeof REASON_CODES];
