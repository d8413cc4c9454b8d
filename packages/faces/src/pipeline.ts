import { createHmac, randomBytes } from 'node:crypto';
import { assessImageQuality } from '@idv/verification';
import { POSE_LIMITS, type LivenessChallenge } from './challenge';
import { compareFaces, FACE_MATCH_THRESHOLD, type FaceComparison } from './compare';
import { decodeImage, type RgbImage } from './decode';
import type { DetectOptions, FaceCrop } from './engine';
import { faceEngine } from './engines';
import { asFaceError, FaceError } from './errors';
import { refusalAt, type FaceEmbedding, type FrameWork } from './frame-work';
import type { AnalysedFrame, ImageFaces } from './frames';
import { FRAME_LIMITS } from './limits';
import { sceneLayout } from './scene';
import { spoofFeatures } from './spoof';
import {
  freshnessFailure,
  judgeLiveness,
  keyFrames,
  type FrameRecapture,
  type LivenessContext,
  type LivenessFrame,
  type LivenessVerdict,
} from './liveness';

export type { AnalysedFrame, ImageFaces } from './frames';

/**
 * The one path from image bytes to answers that the worker, the CLI and the benchmark share: decode,
 * the face models, and for liveness frames the recapture analysis of @idv/verification.
 */

async function facesOf(image: RgbImage, decodeMs: number, options: DetectOptions = {}): Promise<ImageFaces> {
  const engine = await faceEngine();
  const analysis = await engine.detect(image, options);
  return { ...analysis, sourceWidth: image.sourceWidth, sourceHeight: image.sourceHeight, decodeMs };
}

/** Every face in an image, largest first. Throws only `FaceError`. */
export async function detectFaces(bytes: Buffer, options: DetectOptions = {}): Promise<ImageFaces> {
  try {
    const started = performance.now();
    const image = await decodeImage(bytes);
    return await facesOf(image, Math.round(performance.now() - started), options);
  } catch (error) {
    throw asFaceError(error, 'inference_failed');
  }
}

/** The embedding of a face crop a first pass kept (`DetectOptions.keepCrop`). Throws only `FaceError`. */
export async function embedFaceCrop(crop: FaceCrop): Promise<FaceEmbedding> {
  try {
    return await (await faceEngine()).embedCrop(crop);
  } catch (error) {
    throw asFaceError(error, 'inference_failed');
  }
}

export interface ImageComparison extends FaceComparison {
  /** How many faces each image showed; the largest of each was compared. */
  faces: [number, number];
}

/**
 * The largest face of each image compared; an image without a face is a `FaceError` of its own kind. A
 * second image that is a document's portrait (`documentPortrait`) must show its face frontal: a portrait
 * the model reads as turned (|yaw| at or beyond a challenge's turn, `POSE_LIMITS.turnMinYaw`) is no ID
 * photo, and against such faces different people reached 0.76 on the face corpus (docs/faces.md): it is
 * not compared (`similarity: null`, `refused: 'portrait_turned'`), which the step reports as a document
 * photo it could not use.
 */
export type FaceComparisonOutcome =
  ImageComparison | { similarity: null; threshold: number; match: false; faces: [number, number]; refused?: 'portrait_turned' };

export async function compareFaceImages(
  a: Buffer,
  b: Buffer,
  threshold: number = FACE_MATCH_THRESHOLD,
  options: { documentPortrait?: boolean } = {},
): Promise<FaceComparisonOutcome> {
  const detect = (bytes: Buffer, index: number) =>
    detectFaces(bytes).catch((error: unknown) => {
      const failure = asFaceError(error, 'inference_failed');
      // `frameIndex` says which of the two images was refused (0 or 1).
      throw new FaceError(failure.code, failure.detail, index);
    });
  const [first, second] = [await detect(a, 0), await detect(b, 1)];
  return compareWithSecond(first.faces[0]?.embedding, first.faces.length, second, threshold, options.documentPortrait === true);
}

/** A first image's largest face (its embedding, and how many faces it showed) against a second image's. */
function compareWithSecond(
  left: number[] | null | undefined,
  firstFaces: number,
  second: ImageFaces,
  threshold: number,
  documentPortrait: boolean,
): FaceComparisonOutcome {
  const faces: [number, number] = [firstFaces, second.faces.length];
  const right = second.faces[0]?.embedding;
  if (!left || !right) return { similarity: null, threshold, match: false, faces };
  const portraitYaw = second.faces[0]?.pose?.yaw;
  if (documentPortrait && portraitYaw !== undefined && Math.abs(portraitYaw) >= POSE_LIMITS.turnMinYaw)
    return { similarity: null, threshold, match: false, faces, refused: 'portrait_turned' };
  return { ...compareFaces(left, right, threshold), faces };
}

/**
 * A passed attempt's reference frame (its embedding, taken by `checkLiveness`) against the document's
 * portrait, as `compareFaceImages` with `documentPortrait` compares them, without detecting the frame a
 * second time. Null when the attempt did not pass.
 */
function compareReferenceWithPortrait(
  outcome: LivenessOutcome,
  portrait: ImageFaces,
  threshold: number,
): FaceComparisonOutcome | null {
  const { verdict, frames } = outcome;
  if (!verdict.passed || verdict.referenceFrame === null) return null;
  const reference = frames[verdict.referenceFrame];
  return compareWithSecond(reference?.faces[0]?.embedding, reference?.faces.length ?? 0, portrait, threshold, true);
}

export interface FrameInput {
  image: Buffer;
  /** Milliseconds since the page showed the challenge. */
  atMs: number;
}

function checkFrameLimits(frames: readonly FrameInput[]): void {
  if (frames.length === 0) throw new FaceError('no_frames', 'no frames');
  if (frames.length > FRAME_LIMITS.maxFrames)
    throw new FaceError('too_many_frames', `${frames.length} frames, at most ${FRAME_LIMITS.maxFrames}`);
  const total = frames.reduce((sum, frame) => sum + frame.image.length, 0);
  if (total > FRAME_LIMITS.maxTotalBytes)
    throw new FaceError('too_many_frames', `${total} bytes in all, at most ${FRAME_LIMITS.maxTotalBytes}`);
}

/**
 * One frame: faces and recapture. Errors name the frame. `embed: false` leaves `embedding` null and
 * keeps the crop of a frame's one face (`crop`) for its embedding later, should it be a key frame.
 */
export async function analyseFrame(image: Buffer, index: number, options: { embed?: boolean } = {}): Promise<AnalysedFrame> {
  try {
    const started = performance.now();
    const decoded = await decodeImage(image);
    return await analyseDecoded(decoded, index, performance.now() - started, options.embed ?? true);
  } catch (error) {
    throw refusalAt(error, index);
  }
}

/**
 * This thread's models, one image after another: the first refusal stops the pass, so no CPU goes to the
 * later frames of an attempt already refused. The CLI's, and a worker thread's judging a whole attempt.
 */
export const IN_THREAD: FrameWork = {
  parallel: false,
  async analyseFrames(images, { embed }) {
    const frames: AnalysedFrame[] = [];
    for (const [index, image] of images.entries()) frames.push(await analyseFrame(image, index, { embed }));
    return frames;
  },
  async detectFaces(images, options) {
    const found: ImageFaces[] = [];
    for (const [index, image] of images.entries())
      found.push(await detectFaces(image, options).catch((error: unknown) => Promise.reject(refusalAt(error, index))));
    return found;
  },
  async embedCrops(crops) {
    const embedded: FaceEmbedding[] = [];
    for (const [index, crop] of crops.entries())
      embedded.push(await embedFaceCrop(crop).catch((error: unknown) => Promise.reject(refusalAt(error, index))));
    return embedded;
  },
};

async function analyseDecoded(decoded: RgbImage, index: number, decode: number, embed: boolean): Promise<AnalysedFrame> {
  const faces = await facesOf(decoded, 0, { embed, keepCrop: !embed });
  const started = performance.now();
  let recapture: FrameRecapture | null = null;
  // Only a frame that could pass is worth the spectrum: a frame without exactly one face fails anyway.
  if (faces.faces.length === 1) {
    try {
      const quality = await assessImageQuality({
        data: decoded.data,
        width: decoded.width,
        height: decoded.height,
        channels: 3,
      });
      const { score, detected, judged, evidence, periodic } = quality.screen;
      recapture = { score, detected, judged, evidence, periodic };
    } catch (error) {
      throw asFaceError(error, 'inference_failed');
    }
  }
  const recaptureMs = performance.now() - started;
  const face = faces.faces.length === 1 ? faces.faces[0] : undefined;
  const spoof = face === undefined ? null : spoofFeatures(decoded.data, decoded.width, decoded.height, face.box);
  const scene = face === undefined ? null : sceneLayout(decoded.data, decoded.width, decoded.height, face.box);
  return {
    index,
    width: decoded.width,
    height: decoded.height,
    faces: faces.faces,
    recapture,
    spoof,
    scene,
    ...(faces.crop === undefined ? {} : { crop: faces.crop }),
    ms: {
      decode: Math.round(decode),
      faces: faces.ms,
      recapture: Math.round(recaptureMs),
      spoof: Math.round(performance.now() - started - recaptureMs),
    },
  };
}

export interface LivenessRequest {
  challenge: LivenessChallenge;
  nonce: string;
  attemptId: string;
  receivedAt: number;
  frames: FrameInput[];
  context: LivenessContext;
  /**
   * `key_frames` (the default): every frame gets the pose and spoof models, only `keyFrames` get an
   * embedding; `all`: every frame is embedded (what the benchmark compares the cost with).
   */
  embed?: 'key_frames' | 'all';
  /**
   * The secret the key frames are drawn with (`keyFramePicker`); by default one drawn per process (per
   * worker thread). A caller that may re-judge an attempt on another thread or replica passes its own.
   */
  keyFrameKey?: Uint8Array;
  /** For tests: which frame of a run is embedded (overrides `keyFrameKey`). */
  randomInt?: (max: number) => number;
}

const PROCESS_KEY_FRAME_KEY = randomBytes(32);

/**
 * Which frame of each held pose is embedded: HMAC-SHA-256 of the nonce (and the run's position) under a
 * secret the sender never sees. The sender cannot know which frame of a pose is compared, so a face
 * swapped into some frames of a pose is caught as often as it covers the pose; and the same attempt
 * re-judged gets the same key frames, hence the same verdict (`crypto.randomInt` made identity refusals
 * vary from run to run on the same frames). The modulo bias of 2^32 over at most 30 frames is under 1e-8.
 */
export function keyFramePicker(nonce: string, key: Uint8Array = PROCESS_KEY_FRAME_KEY): (max: number) => number {
  let draw = 0;
  return (max: number) => {
    const digest = createHmac('sha256', key).update(`${nonce}\u0000${draw}`).digest();
    draw += 1;
    return digest.readUInt32BE(0) % max;
  };
}

export interface LivenessOutcome {
  verdict: LivenessVerdict;
  frames: AnalysedFrame[];
}

/**
 * Limits, every frame through the models (`work`: this thread, or a pool's threads), then the pure
 * verdict. Throws only `FaceError`, naming the frame it is about.
 */
export async function checkLiveness(request: LivenessRequest, work: FrameWork = IN_THREAD): Promise<LivenessOutcome> {
  const stale = freshnessFailure(
    request.challenge,
    { ...request, frameTimes: request.frames.map((frame) => frame.atMs) },
    request.context,
  );
  // A stale or replayed nonce is judged without spending a second of CPU on its frames.
  if (stale !== null) {
    const unread = request.frames.map((frame) => ({ atMs: frame.atMs, faces: [], recapture: null, spoof: null, scene: null }));
    return { verdict: judgeLiveness(request.challenge, { ...request, frames: unread }, request.context), frames: [] };
  }
  checkFrameLimits(request.frames);
  const images = request.frames.map((frame) => frame.image);
  const embedAll = request.embed === 'all';
  const frames = await work.analyseFrames(images, { embed: embedAll });
  const seen = (): LivenessFrame[] =>
    frames.map((analysed, index) => ({
      atMs: request.frames[index]?.atMs ?? Number.NaN,
      faces: analysed.faces,
      recapture: analysed.recapture,
      spoof: analysed.spoof,
      scene: analysed.scene,
    }));
  if (!embedAll) {
    const pick = request.randomInt ?? keyFramePicker(request.nonce, request.keyFrameKey);
    const chosen = keyFrames(seen(), request.challenge, pick);
    // A refusal names its place among the key frames; the attempt's frame is the one to name.
    const asAttemptFrame = (error: unknown): never => {
      throw refusalAt(error, chosen[asFaceError(error, 'inference_failed').frameIndex ?? 0] ?? 0);
    };
    const crops = chosen.map((index) => frames[index]?.crop ?? null);
    if (crops.every((crop): crop is FaceCrop => crop !== null)) {
      // A key frame shows one face (`keyFrames`), whose crop the first pass kept: only the embedding model
      // runs again, on the very input it would get from detecting the frame anew (the same embedding).
      const embedded = await work.embedCrops(crops).catch(asAttemptFrame);
      for (const [position, index] of chosen.entries()) {
        const analysed = frames[index];
        const found = embedded[position];
        if (analysed === undefined || found === undefined) continue;
        analysed.faces = analysed.faces.map((face, at) => ({ ...face, embedding: at === 0 ? found.embedding : null }));
        analysed.ms.faces += found.ms;
      }
    } else {
      // A pass that kept no crops (a FrameWork of another version): detect the key frames again.
      const embedded = await work
        .detectFaces(
          chosen.map((index) => images[index] as Buffer),
          { embed: true, scores: false },
        )
        .catch(asAttemptFrame);
      for (const [position, index] of chosen.entries()) {
        const analysed = frames[index];
        const found = embedded[position];
        if (analysed === undefined || found === undefined) continue;
        // Same image, same detector: the faces line up; only the embeddings are taken from this pass.
        analysed.faces = analysed.faces.map((face, at) => ({ ...face, embedding: found.faces[at]?.embedding ?? null }));
        analysed.ms.faces += found.decodeMs + found.ms;
      }
    }
  }
  // The crops served the key frames; an outcome carries no image of the face.
  for (const frame of frames) delete frame.crop;
  const verdict = judgeLiveness(
    request.challenge,
    { nonce: request.nonce, attemptId: request.attemptId, receivedAt: request.receivedAt, frames: seen() },
    request.context,
  );
  return { verdict, frames };
}

export interface FaceStepOutcome {
  liveness: LivenessOutcome;
  /** The comparison with the document's portrait; null without one, or when the attempt did not pass. */
  document: FaceComparisonOutcome | null;
}

/**
 * A face attempt whole: its liveness, and when it passed and a document portrait is given, the
 * portrait's largest face (which must read frontal, `compareFaceImages`' `documentPortrait`) against the
 * reference frame at `threshold`. With a pool (`work.parallel`) the portrait is detected beside the
 * frames' first pass and serves only a passed attempt; in one thread it is detected only then. A
 * portrait the models refuse is a `FaceError` with `frameIndex` 1, the second image of a comparison.
 */
export async function judgeFaceStep(
  request: LivenessRequest & { portrait?: Buffer; threshold?: number },
  work: FrameWork = IN_THREAD,
): Promise<FaceStepOutcome> {
  const portrait = request.portrait;
  const detectPortrait = async (): Promise<ImageFaces> => {
    const [found] = await work.detectFaces([portrait as Buffer], { scores: false }).catch((error: unknown) => {
      throw refusalAt(error, 1);
    });
    if (found === undefined) throw new FaceError('inference_failed', 'no answer for the portrait', 1);
    return found;
  };
  // Settled at once: a portrait refused while the attempt fails anyway is no error of the step.
  const early =
    portrait !== undefined && work.parallel
      ? detectPortrait().then(
          (faces) => ({ faces }),
          (error: unknown) => ({ error }),
        )
      : null;
  const liveness = await checkLiveness(request, work);
  if (portrait === undefined || !liveness.verdict.passed) {
    await early;
    return { liveness, document: null };
  }
  const found = early === null ? { faces: await detectPortrait() } : await early;
  if ('error' in found) throw found.error;
  return { liveness, document: compareReferenceWithPortrait(liveness, found.faces, request.threshold ?? FACE_MATCH_THRESHOLD) };
}
