import { asFaceError, FaceError, type SerialisedFaceError } from './errors';
import type { DetectOptions, FaceCrop } from './engine';
import type { AnalysedFrame, ImageFaces } from './frames';

/**
 * Where a face attempt's images go through the models: this thread, one image after another (the CLI, a
 * worker thread judging a whole attempt), or a pool's threads, every image of a pass at once (the
 * service). A frame costs ~250 ms of one core (docs/faces.md, "One attempt over every face thread"): on a
 * two-core machine nine frames in one thread were most of a 3.4 s step.
 *
 * Both answer in image order and fail the same way: with the `FaceError` of the first image, in order,
 * that the models refused, its `frameIndex` the image's position.
 */
export interface FrameWork {
  /** Several images at once (a pool): the caller may start independent work beside a pass. */
  readonly parallel: boolean;
  /** The first pass: each frame's faces (embedded only with `embed`), recapture and replay cues. */
  analyseFrames(images: readonly Buffer[], options: { embed: boolean }): Promise<AnalysedFrame[]>;
  /** Each image's faces with `options` (the document's portrait). */
  detectFaces(images: readonly Buffer[], options: DetectOptions): Promise<ImageFaces[]>;
  /** Each face crop's embedding (the key frames', from the crops the first pass kept). */
  embedCrops(crops: readonly FaceCrop[]): Promise<FaceEmbedding[]>;
}

/** A crop's embedding (null when the model gave none) and the model's time. */
export interface FaceEmbedding {
  embedding: number[] | null;
  ms: number;
}

/** The tasks a pool's thread runs for a `FrameWork` (@idv/faces' worker answers them). */
export type FrameTask =
  | { kind: 'face_frame'; image: Buffer; index: number; embed: boolean }
  | { kind: 'face_detect'; image: Buffer; options: DetectOptions }
  | { kind: 'face_embed'; crop: FaceCrop };

export type FrameTaskResult =
  | { ok: true; kind: 'face_frame'; frame: AnalysedFrame }
  | { ok: true; kind: 'face_detect'; faces: ImageFaces }
  | { ok: true; kind: 'face_embed'; embedding: FaceEmbedding }
  | { ok: false; error: SerialisedFaceError };

/** The refusal with the image's position (a detection's does not name one). */
export function refusalAt(error: unknown, index: number): FaceError {
  const failure = asFaceError(error, 'inference_failed');
  return failure.frameIndex === index ? failure : new FaceError(failure.code, failure.detail, index);
}

/**
 * Every image of a pass as its own task of `runTask` (a pool's `run`), all at once: the pool spreads them
 * over its threads. A thread's answer `{ ok: false }` is an input refusal; a rejected task (a bug, a
 * thread that died) is an engine failure. Every task is awaited before answering, so no refusal is left
 * unhandled and the first one in image order is the one reported, as in one thread.
 */
export function pooledFrameWork(runTask: (task: FrameTask) => Promise<FrameTaskResult>): FrameWork {
  async function all<T>(tasks: FrameTask[], take: (result: Extract<FrameTaskResult, { ok: true }>) => T): Promise<T[]> {
    const settled = await Promise.allSettled(
      tasks.map(async (task, index) => {
        const result = await runTask(task).catch((error: unknown) => {
          throw refusalAt(error, index);
        });
        if (!result.ok) throw new FaceError(result.error.code, result.error.detail, index);
        if (result.kind !== task.kind)
          throw new FaceError('inference_failed', `a ${task.kind} task answered ${result.kind}`, index);
        return take(result);
      }),
    );
    const refused = settled.find((outcome) => outcome.status === 'rejected');
    if (refused !== undefined) throw refused.reason;
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
  }
  return {
    parallel: true,
    analyseFrames: (images, { embed }) =>
      all(
        images.map((image, index) => ({ kind: 'face_frame', image, index, embed })),
        (result) => (result as Extract<FrameTaskResult, { kind: 'face_frame' }>).frame,
      ),
    detectFaces: (images, options) =>
      all(
        images.map((image) => ({ kind: 'face_detect', image, options })),
        (result) => (result as Extract<FrameTaskResult, { kind: 'face_detect' }>).faces,
      ),
    embedCrops: (crops) =>
      all(
        crops.map((crop) => ({ kind: 'face_embed', crop })),
        (result) => (result as Extract<FrameTaskResult, { kind: 'face_embed' }>).embedding,
      ),
  };
}
