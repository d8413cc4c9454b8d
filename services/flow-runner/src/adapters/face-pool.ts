import {
  FaceError,
  judgeFaceStep,
  pooledFrameWork,
  type FaceComparisonOutcome,
  type FrameTask,
  type FrameTaskResult,
  type FrameWork,
  type LivenessChallenge,
  type LivenessVerdict,
} from '@idv/faces';
import type { ResourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { FaceInputRefused, type FaceModels } from '../domain/ports';

export interface FacePoolOptions {
  /** Worker threads, each holding one copy of the face models (≈ 150 MB loaded, ≈ 260 MB peak). */
  threads: number;
  /** Heap limit of each thread (MB): bounds one image's memory. */
  maxHeapMb: number;
  /** Young generation of each thread (MB): at V8's own, 48, a face thread peaked ≈ 12 MiB higher than at 12. */
  youngGenerationMb: number;
  /**
   * The secret each attempt's key frames are drawn with (`keyFramePicker` of @idv/faces): the same on
   * every replica, so an attempt re-judged elsewhere (a redelivered job) gets the same verdict.
   */
  keyFrameKey: Buffer;
}

/**
 * The face models in a pool of worker threads of their own, beside the document readers' pool: a face
 * attempt is seconds of CPU, and neither kind of job should wait behind the other's queue; each is
 * sized by its own setting (docs/decisions.md).
 *
 * One attempt's images are spread over every thread (`pooledFrameWork`): its verdict comes when its
 * frames are done, not after nine frames in a row on one core. Attempts take the pool one at a time, so
 * an attempt's second pass (its key frames) never waits behind the next attempt's frames; the pool is
 * as busy as before and each verdict comes as early as the cores allow (docs/faces.md, "One attempt over
 * every face thread").
 */
export class FacePool implements FaceModels {
  private readonly pool: Piscina;
  private readonly keyFrameKey: Buffer;
  private readonly work: FrameWork;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(options: FacePoolOptions) {
    this.keyFrameKey = options.keyFrameKey;
    this.pool = new Piscina({
      filename: require.resolve('@idv/faces/worker'),
      minThreads: options.threads,
      maxThreads: options.threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb, maxYoungGenerationSizeMb: options.youngGenerationMb },
    });
    this.work = pooledFrameWork((task: FrameTask) => this.pool.run(task) as Promise<FrameTaskResult>);
  }

  /** The limits each thread was started with (V8's own account of them). */
  get threadLimits(): ResourceLimits[] {
    return this.pool.threads.map((thread) => thread.resourceLimits ?? {});
  }

  /**
   * Liveness of one attempt's frames, and with `portrait` the comparison of its reference frame with the
   * document's portrait (its largest face, which must be frontal, at the threshold in use): the verdicts
   * only. Embeddings live in this process for the length of the call and go nowhere else. `document` is
   * null without a portrait or when the attempt did not pass.
   */
  async liveness(input: {
    challenge: LivenessChallenge;
    nonce: string;
    attemptId: string;
    receivedAt: number;
    frames: { image: Buffer; atMs: number }[];
    portrait?: Buffer;
  }): Promise<{ verdict: LivenessVerdict; document: FaceComparisonOutcome | null }> {
    const judged = this.turn.then(() =>
      judgeFaceStep({ ...input, context: { nonceAlreadyUsed: false }, keyFrameKey: this.keyFrameKey }, this.work),
    );
    this.turn = judged.catch(() => undefined);
    try {
      const { liveness, document } = await judged;
      return { verdict: liveness.verdict, document };
    } catch (error) {
      if (error instanceof FaceError && error.isInputError) throw new FaceInputRefused(error.toJSON());
      throw error;
    }
  }

  get queued(): number {
    return this.pool.queueSize;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
