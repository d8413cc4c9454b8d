import type { DocumentType, Side, SideReading, VerificationResult, VerificationTask } from '@idv/verification';
import type { ResourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';

export interface VerificationPoolOptions {
  /** Worker threads (each loads zxing and the OCR models once). */
  threads: number;
  /** Heap limit of each worker thread: one job's memory is bounded by it. */
  maxHeapMb: number;
  /** Young generation of each worker thread (MB): V8's own, 48, keeps ≈ 25 MiB more committed than 12. */
  youngGenerationMb: number;
}

/**
 * The verification engine in a pool of worker threads, so image work never runs on the event loop
 * that answers the person's pages. Jobs wait in the pool's queue when every thread is busy.
 */
export class VerificationPool {
  private readonly pool: Piscina<VerificationTask, VerificationResult>;

  constructor(options: VerificationPoolOptions) {
    this.pool = new Piscina({
      filename: require.resolve('@idv/verification/worker'),
      minThreads: options.threads,
      maxThreads: options.threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      resourceLimits: {
        maxOldGenerationSizeMb: options.maxHeapMb,
        maxYoungGenerationSizeMb: options.youngGenerationMb,
      },
    });
  }

  /** The limits each thread was started with (V8's own account of them). */
  get threadLimits(): ResourceLimits[] {
    return this.pool.threads.map((thread) => thread.resourceLimits ?? {});
  }

  async readSide(image: Buffer, options: { side: Side; acceptedTypes: DocumentType[]; today: string }): Promise<SideReading> {
    const result = await this.pool.run({ kind: 'read_side', image, ...options });
    if (result.kind !== 'read_side') throw new Error('the verification worker answered another task');
    return result.reading;
  }

  /** Jobs waiting for a free thread (for the metrics). */
  get queued(): number {
    return this.pool.queueSize;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
