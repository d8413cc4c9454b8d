import path from 'node:path';
import type { FaceComparisonOutcome, LivenessChallenge, LivenessVerdict, SerialisedFaceError } from '@idv/faces';
import { Piscina } from 'piscina';
import type { FacePoolResult } from './face-worker';

export interface FacePoolOptions {
  /** Worker threads, each holding one copy of the face models (≈ 150 MB loaded, ≈ 260 MB peak). */
  threads: number;
  /** Heap limit of each thread (MB): bounds one job's memory. */
  maxHeapMb: number;
  /**
   * The secret each attempt's key frames are drawn with (`keyFramePicker` of @idv/faces): the same on
   * every thread and replica, so an attempt re-judged elsewhere (a redelivered job) gets the same verdict.
   */
  keyFrameKey: Buffer;
}

/** A task the models refused for its input (an image they could not use), as opposed to a failure of ours. */
export class FaceInputRefused extends Error {
  constructor(readonly error: SerialisedFaceError) {
    super(`${error.code}: ${error.detail}`);
    this.name = 'FaceInputRefused';
  }
}

/**
 * The face models in a pool of worker threads of their own, beside the document readers' pool: a face
 * attempt is seconds of CPU, and neither kind of job should wait behind the other's queue; each is
 * sized by its own setting (docs/decisions.md).
 */
export class FacePool {
  private readonly pool: Piscina;
  private readonly keyFrameKey: Buffer;

  constructor(options: FacePoolOptions) {
    this.keyFrameKey = options.keyFrameKey;
    this.pool = new Piscina({
      filename: path.join(__dirname, 'face-worker.js'),
      minThreads: options.threads,
      maxThreads: options.threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
    });
  }

  /**
   * Liveness of one attempt's frames, and with `portrait` the comparison of its reference frame with the
   * document's portrait (its largest face, which must be frontal, at the threshold in use) in the same
   * task: the verdicts only (the frames' analyses stay in the thread). `document` is null without a
   * portrait or when the attempt did not pass.
   */
  async liveness(input: {
    challenge: LivenessChallenge;
    nonce: string;
    attemptId: string;
    receivedAt: number;
    frames: { image: Buffer; atMs: number }[];
    portrait?: Buffer;
  }): Promise<{ verdict: LivenessVerdict; document: FaceComparisonOutcome | null }> {
    const result = (await this.pool.run({
      kind: 'face_liveness',
      ...input,
      context: { nonceAlreadyUsed: false },
      keyFrameKey: this.keyFrameKey,
    })) as FacePoolResult;
    if (!result.ok) throw new FaceInputRefused(result.error);
    if (result.kind !== 'face_liveness') throw new Error('the face worker answered another task');
    return { verdict: result.outcome.verdict, document: result.document };
  }

  get queued(): number {
    return this.pool.queueSize;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
