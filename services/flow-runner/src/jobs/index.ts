import type { ConsumerSpec, Logger } from '@idv/kit';
import type { ArtefactStore, FaceModels, SideReader, VerificationMetrics } from '../domain/ports';
import type { FlowCore } from '../use-cases/flow-core';
import { CAPTURE_READINGS_BINDING, CAPTURE_READINGS_QUEUE, captureReader } from './capture-reader';
import { FACE_CHECKS_BINDING, FACE_CHECKS_QUEUE, faceJudge } from './face-judge';

/** What the queue jobs need; a pool that is not configured (0 threads) leaves its queue unconsumed. */
export interface JobDeps {
  artefacts: ArtefactStore;
  core: FlowCore;
  logger: Logger;
  metrics: VerificationMetrics;
  /** The document readers, with their thread count; null when VERIFICATION_THREADS is 0. */
  reader: { port: SideReader; threads: number } | null;
  /** The face models; null when FACE_THREADS is 0. */
  faces: FaceModels | null;
}

/**
 * Every queue the flow-runner consumes, in one table: `main.ts` hands each entry to the broker. The
 * periodic work runs on the kit's `BackgroundJob` instead of a queue: `registry-checks.ts` and
 * `retention.ts` beside this file, started by `main.ts`.
 */
export function flowRunnerJobs(deps: JobDeps): ConsumerSpec[] {
  const { artefacts, core, logger, metrics, reader, faces } = deps;
  const jobs: ConsumerSpec[] = [];
  if (reader) {
    jobs.push({
      queue: CAPTURE_READINGS_QUEUE,
      bindings: [CAPTURE_READINGS_BINDING],
      // Enough to keep every thread busy and one job waiting each; the rest stay in the durable queue.
      prefetch: reader.threads * 2,
      handler: captureReader({ artefacts, reader: reader.port, core, logger, metrics }),
    });
  }
  if (faces) {
    jobs.push({
      queue: FACE_CHECKS_QUEUE,
      bindings: [FACE_CHECKS_BINDING],
      // The pool judges one attempt at a time over all its threads (FacePool): one judged, one ready;
      // the rest stay in the durable queue for whichever replica is free first.
      prefetch: 2,
      handler: faceJudge({ artefacts, models: faces, core, logger, metrics }),
    });
  }
  return jobs;
}
