/**
 * The only errors this package throws. Input errors are the caller's (a bad upload gets a clear answer,
 * never a 500); engine errors are ours (the model could not load or run). Both carry a closed code so the
 * service maps them with one exhaustive switch, and both survive a worker boundary as `{ code, detail }`.
 */
export const FACE_INPUT_ERROR_CODES = [
  /** No bytes at all. */
  'image_empty',
  /** More bytes than the frame limit. */
  'image_too_large',
  /** Not a JPEG, PNG or WebP, whatever its name says (HEIC included: the page asks for a JPEG). */
  'image_unsupported',
  /** More pixels than the limit according to its header: refused before decoding. */
  'image_too_many_pixels',
  /** Smaller than a face can be found in. */
  'image_too_small',
  /** A known type whose data cannot be decoded. */
  'image_corrupt',
  /** More frames, or more bytes in all, than one liveness attempt may carry. */
  'too_many_frames',
  /** A liveness attempt with no frames. */
  'no_frames',
] as const;
export type FaceInputErrorCode = (typeof FACE_INPUT_ERROR_CODES)[number];

export const FACE_ENGINE_ERROR_CODES = ['model_load_failed', 'inference_failed'] as const;
export type FaceEngineErrorCode = (typeof FACE_ENGINE_ERROR_CODES)[number];

export type FaceErrorCode = FaceInputErrorCode | FaceEngineErrorCode;

export class FaceError extends Error {
  override readonly name = 'FaceError';
  constructor(
    readonly code: FaceErrorCode,
    /** For logs and support: what was wrong, never the image itself. */
    readonly detail: string,
    /** Which frame of a liveness attempt, when the error is about one. */
    readonly frameIndex?: number,
  ) {
    super(`${code}: ${detail}`);
  }

  get isInputError(): boolean {
    return (FACE_INPUT_ERROR_CODES as readonly string[]).includes(this.code);
  }

  toJSON(): SerialisedFaceError {
    return { code: this.code, detail: this.detail, ...(this.frameIndex === undefined ? {} : { frameIndex: this.frameIndex }) };
  }
}

export interface SerialisedFaceError {
  code: FaceErrorCode;
  detail: string;
  frameIndex?: number;
}

export function isFaceError(error: unknown): error is FaceError {
  return error instanceof FaceError;
}

/** Anything caught from a dependency becomes an engine error, so no untyped error leaves the package. */
export function asFaceError(error: unknown, fallback: FaceEngineErrorCode): FaceError {
  if (error instanceof FaceError) return error;
  return new FaceError(fallback, error instanceof Error ? error.message : String(error));
}
