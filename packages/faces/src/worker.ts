import { FACE_MATCH_THRESHOLD } from './compare';
import type { DetectOptions, FaceCrop } from './engine';
import type { FaceEmbedding } from './frame-work';
import { asFaceError, type SerialisedFaceError } from './errors';
import {
  analyseFrame,
  compareFaceImages,
  detectFaces,
  embedFaceCrop,
  type AnalysedFrame,
  type FaceComparisonOutcome,
  type ImageFaces,
} from './pipeline';

/**
 * The entry of a worker thread of the service's pool (piscina's `filename`), like @idv/verification's:
 * a default export taking one serialisable task and returning a serialisable result. The models load on
 * a thread's first task and serve every task after. Input problems come back as `{ ok: false, error }`
 * (a thrown error loses its class crossing the thread boundary); only a bug rejects.
 *
 * `face_frame` and `face_detect` with options are a face attempt's images one by one, as
 * `pooledFrameWork` spreads them over a pool (src/frame-work.ts); `judgeFaceStep` draws the verdict
 * where the pool is run from.
 */
export type ImageBytes = Buffer | Uint8Array;

export type FaceTask =
  | { kind: 'face_detect'; image: ImageBytes; options?: DetectOptions }
  | { kind: 'face_frame'; image: ImageBytes; index: number; embed: boolean }
  | { kind: 'face_embed'; crop: FaceCrop }
  | { kind: 'face_compare'; a: ImageBytes; b: ImageBytes; threshold?: number; documentPortrait?: boolean };

export type FaceTaskResult =
  | { ok: true; kind: 'face_detect'; faces: ImageFaces }
  | { ok: true; kind: 'face_frame'; frame: AnalysedFrame }
  | { ok: true; kind: 'face_embed'; embedding: FaceEmbedding }
  | { ok: true; kind: 'face_compare'; comparison: FaceComparisonOutcome }
  | { ok: false; kind: FaceTask['kind']; error: SerialisedFaceError };

function asBuffer(bytes: ImageBytes): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

async function run(task: FaceTask): Promise<FaceTaskResult> {
  switch (task.kind) {
    case 'face_detect':
      return { ok: true, kind: task.kind, faces: await detectFaces(asBuffer(task.image), task.options) };
    case 'face_frame':
      return { ok: true, kind: task.kind, frame: await analyseFrame(asBuffer(task.image), task.index, { embed: task.embed }) };
    case 'face_embed':
      return { ok: true, kind: task.kind, embedding: await embedFaceCrop(task.crop) };
    case 'face_compare':
      return {
        ok: true,
        kind: task.kind,
        comparison: await compareFaceImages(asBuffer(task.a), asBuffer(task.b), task.threshold ?? FACE_MATCH_THRESHOLD, {
          documentPortrait: task.documentPortrait === true,
        }),
      };
  }
}

export default async function runFaceTask(task: FaceTask): Promise<FaceTaskResult> {
  try {
    return await run(task);
  } catch (error) {
    const failure = asFaceError(error, 'inference_failed');
    if (!failure.isInputError) throw failure;
    return { ok: false, kind: task.kind, error: failure.toJSON() };
  }
}
