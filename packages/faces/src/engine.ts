import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type * as HumanModule from '@vladmandic/human';
import type { Config, FaceResult, Human } from '@vladmandic/human';
import { asFaceError, FaceError } from './errors';
import type { RgbImage } from './decode';
import { MIN_FACE_PX } from './limits';
import { oneDetectionPerFace, type FaceBox } from './overlap';

export type { FaceBox } from './overlap';

/**
 * The face models: @vladmandic/human on tfjs' wasm backend (docs/faces.md has the measurements that
 * chose it). Its weights ship inside the npm package and are read from disk; nothing is fetched. One
 * engine per process or worker thread, loaded on first use and shared by every call after.
 */

/** Head pose in degrees. Frames are taken as the camera saw them (not mirrored like a selfie preview). */
export interface HeadPose {
  /** Positive when the person turns to their own right (the nose moves towards the image's left). */
  yaw: number;
  /** Up/down, sign as the model reports it: the challenge only bounds its magnitude. */
  pitch: number;
  /** In-plane tilt, sign as the model reports it: unused by the challenge. */
  roll: number;
}

export interface DetectedFace {
  /** In pixels of the analysed image (`FaceAnalysis.width` × `height`). */
  box: FaceBox;
  /** Detector and mesh confidence, 0–1. */
  score: number;
  pose: HeadPose | null;
  /** The 1024-d `faceres` descriptor; compare with `faceSimilarity`. Never leaves the service. */
  embedding: number[] | null;
  /** The model's antispoof score, 0–1, higher is "real". Not a gate on its own (docs/faces.md). */
  antispoof: number | null;
  /** The model's liveness score, 0–1, higher is "live". Not a gate on its own either. */
  liveness: number | null;
}

/**
 * The face as the models after the detector see it: the mesh's crop of the image (upright, 0–1 floats,
 * `height` × `width` × 3), the very input of the `faceres` embedding. Kept by a first pass (`keepCrop`)
 * so that a later pass embeds it (`FaceEngine.embedCrop`) without decoding and detecting the image again.
 */
export interface FaceCrop {
  data: Float32Array;
  height: number;
  width: number;
}

export interface FaceAnalysis {
  width: number;
  height: number;
  faces: DetectedFace[];
  /** With `keepCrop`, the crop of the image's one face; null when it shows none or several. */
  crop?: FaceCrop | null;
  /** Model time only (decode and the recapture analysis are timed by their callers). */
  ms: number;
}

const load = createRequire(__filename);

function packageDir(name: string): string {
  // The package's exports map hides its wasm build; the main entry's folder is `dist/` in both packages.
  return path.dirname(load.resolve(name));
}

/** Reads a tfjs graph model (model.json + weight shards) from disk for tfjs' `loadGraphModel`. */
function fileLoadHandler(url: string): tf.io.IOHandler {
  const file = url.slice('file://'.length);
  return {
    load: async (): Promise<tf.io.ModelArtifacts> => {
      const json = JSON.parse(await readFile(file, 'utf8')) as tf.io.ModelJSON;
      const dir = path.dirname(file);
      const shards = await Promise.all(
        json.weightsManifest.flatMap((group) => group.paths.map((p) => readFile(path.join(dir, p)))),
      );
      const weights = Buffer.concat(shards);
      return {
        ...json,
        weightSpecs: json.weightsManifest.flatMap((group) => group.weights),
        weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
      };
    },
  };
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** Detector settings; `cacheSensitivity: 0` and `skipFrames: 0` so no image reuses a previous one's result. */
export const ENGINE_CONFIG = {
  debug: false,
  async: false,
  warmup: 'none',
  cacheSensitivity: 0,
  filter: { enabled: false },
  face: {
    enabled: true,
    detector: { rotation: true, maxDetected: 10, skipFrames: 0, skipTime: 0, minConfidence: 0.3, return: false },
    mesh: { enabled: true },
    iris: { enabled: false },
    attention: { enabled: false },
    emotion: { enabled: false },
    description: { enabled: true, skipFrames: 0, skipTime: 0 },
    antispoof: { enabled: true, skipFrames: 0, skipTime: 0 },
    liveness: { enabled: true, skipFrames: 0, skipTime: 0 },
  },
  body: { enabled: false },
  hand: { enabled: false },
  object: { enabled: false },
  gesture: { enabled: false },
  segmentation: { enabled: false },
} satisfies DeepPartial<Config>;

const DEGREES = 180 / Math.PI;

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function toDetectedFace(face: FaceResult): DetectedFace {
  const [x, y, width, height] = face.box;
  const angle = face.rotation?.angle;
  return {
    box: { x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height) },
    score: round(face.score, 3),
    pose:
      angle === undefined
        ? null
        : { yaw: round(angle.yaw * DEGREES, 1), pitch: round(angle.pitch * DEGREES, 1), roll: round(angle.roll * DEGREES, 1) },
    embedding: face.embedding && face.embedding.length > 0 ? Array.from(face.embedding) : null,
    antispoof: typeof face.real === 'number' ? round(face.real, 3) : null,
    liveness: typeof face.live === 'number' ? round(face.live, 3) : null,
  };
}

export interface DetectOptions {
  /** Take each face's embedding (default true). */
  embed?: boolean;
  /** Run the antispoof and liveness models (default true). */
  scores?: boolean;
  /** Keep the crop of an image's one face (`FaceAnalysis.crop`) for a later `embedCrop`. */
  keepCrop?: boolean;
}

export class FaceEngine {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly human: Human) {}

  static async load(): Promise<FaceEngine> {
    try {
      const { Human: HumanClass } = load(path.join(packageDir('@vladmandic/human'), 'human.node-wasm.js')) as typeof HumanModule;
      const human = new HumanClass({
        ...ENGINE_CONFIG,
        backend: 'wasm',
        wasmPath: `${packageDir('@tensorflow/tfjs-backend-wasm')}/`,
        modelBasePath: `file://${path.join(packageDir('@vladmandic/human'), '..', 'models')}/`,
      });
      // human's bundle and this package share tfjs-core's one engine (a global), so its io routers too.
      tf.io.registerLoadRouter((url: string | string[]) => {
        const first = Array.isArray(url) ? url[0] : url;
        // tfjs' own routers answer null for URLs that are not theirs; its type does not say so.
        return typeof first === 'string' && first.startsWith('file://')
          ? fileLoadHandler(first)
          : (null as unknown as tf.io.IOHandler);
      });
      await human.load();
      const missing = ['blazeface', 'facemesh', 'faceres', 'antispoof', 'liveness'].filter(
        (name) => !human.models.loaded().includes(name),
      );
      if (missing.length > 0) throw new Error(`models not loaded: ${missing.join(', ')}`);
      // The first inference compiles the wasm kernels (≈ 1.2 s more than the next); pay it at load, on
      // the sample face human embeds, so no person's first frame does.
      await human.warmup({ warmup: 'face' });
      return new FaceEngine(human);
    } catch (error) {
      throw asFaceError(error, 'model_load_failed');
    }
  }

  /**
   * Waits for the detections under way. The models stay loaded: human keeps its models per module, so a
   * process or thread holds them until it ends (a second load in the same process reuses them), and
   * disposing them here would break the next engine.
   */
  async stop(): Promise<void> {
    await this.queue;
  }

  /** The backend actually in use and the tensors held (the models' weights; more means a leak). */
  get stats(): { backend: string; tensors: number; bytes: number } {
    const memory = tf.memory();
    return { backend: tf.getBackend(), tensors: memory.numTensors, bytes: memory.numBytes };
  }

  /**
   * Every face in the image, one detection per face (`oneDetectionPerFace`), largest first. Calls are
   * serialised: the models hold state between ops.
   * `embed: false` skips the `faceres` embedding (`embedding: null`), about two thirds of a face's CPU
   * (docs/faces.md "Cost"): for liveness frames that only need a pose and the spoof scores.
   * `scores: false` skips the antispoof and liveness models (both null), for a second pass over a frame
   * whose scores the first pass took.
   */
  detect(image: RgbImage, options: DetectOptions = {}): Promise<FaceAnalysis> {
    const run = this.queue.then(() =>
      this.detectNow(image, options.embed ?? true, options.scores ?? true, options.keepCrop ?? false),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The `faceres` embedding of a face crop kept by `detect` (`keepCrop`), as human computes it inside a
   * detection (its `faceres.enhance` and `predict`: the crop resized to the model's input, times 255,
   * the 1024-wide output): the same operations on the same floats, so the same embedding as detecting
   * the image again with `embed`, for the embedding's CPU alone (no decode, detector or mesh).
   */
  embedCrop(crop: FaceCrop): Promise<{ embedding: number[] | null; ms: number }> {
    const run = this.queue.then(() => this.embedNow(crop));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async embedNow(crop: FaceCrop): Promise<{ embedding: number[] | null; ms: number }> {
    const started = performance.now();
    const model = this.human.models.models['faceres'];
    const shape = model?.inputs[0]?.shape;
    if (!model || !shape) throw new FaceError('inference_failed', 'the embedding model is not loaded');
    const owned: tf.Tensor[] = [];
    try {
      const input = tf.tensor4d(crop.data, [1, crop.height, crop.width, 3], 'float32');
      owned.push(input);
      const resized = tf.image.resizeBilinear(input, [shape[2] ?? 0, shape[1] ?? 0], false);
      owned.push(resized);
      const scaled = tf.mul(resized, tf.scalar(255, 'float32'));
      owned.push(scaled);
      const outputs = model.execute(scaled) as tf.Tensor[];
      owned.push(...outputs);
      const descriptor = outputs.find((output) => output.shape[1] === 1024);
      const embedding = descriptor ? Array.from(await descriptor.data()) : [];
      return { embedding: embedding.length > 0 ? embedding : null, ms: Math.round(performance.now() - started) };
    } catch (error) {
      throw asFaceError(error, 'inference_failed');
    } finally {
      tf.dispose(owned);
    }
  }

  private async detectNow(image: RgbImage, embed: boolean, scores: boolean, keepCrop: boolean): Promise<FaceAnalysis> {
    const started = performance.now();
    const tensor = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
    const crops: tf.Tensor[] = [];
    try {
      // human merges a call's config into its own and keeps it: say it every call, both ways.
      const result = await this.human.detect(tensor, {
        face: {
          detector: { return: keepCrop },
          description: { enabled: embed },
          antispoof: { enabled: scores },
          liveness: { enabled: scores },
        },
      });
      for (const face of result.face) if (face.tensor) crops.push(face.tensor);
      if (result.error !== null && result.error !== '') throw new FaceError('inference_failed', result.error);
      const detected = result.face.map((face) => ({
        ...toDetectedFace(face),
        crop: face.tensor,
      }));
      const kept = oneDetectionPerFace(detected.filter((face) => Math.min(face.box.width, face.box.height) >= MIN_FACE_PX)).sort(
        (a, b) => b.box.width * b.box.height - a.box.width * a.box.height,
      );
      const faces = kept.map(({ crop: _crop, ...face }) => face);
      const analysis: FaceAnalysis = { width: image.width, height: image.height, faces, ms: 0 };
      if (keepCrop) analysis.crop = kept.length === 1 ? await cropOf(kept[0]?.crop) : null;
      analysis.ms = Math.round(performance.now() - started);
      return analysis;
    } catch (error) {
      throw asFaceError(error, 'inference_failed');
    } finally {
      tf.dispose([tensor, ...crops]);
    }
  }
}

/** A face's crop tensor (height × width × 3, as human returns it) copied out of the backend. */
async function cropOf(tensor: tf.Tensor | undefined): Promise<FaceCrop | null> {
  if (tensor === undefined || tensor.shape.length !== 3 || tensor.shape[2] !== 3) return null;
  const data = await tensor.data();
  if (!(data instanceof Float32Array)) return null;
  return { data, height: tensor.shape[0] ?? 0, width: tensor.shape[1] ?? 0 };
}
