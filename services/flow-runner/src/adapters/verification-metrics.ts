import type { Metrics } from '@idv/kit';
import type { VerificationMetrics } from '../domain/ports';

/**
 * The metrics of the verification work, in one place: how captures are read and face attempts judged,
 * how long each takes (queueing in the pool included), and what waits for a thread. Outcomes are closed
 * sets (docs/flow-runner.md, "Metrics").
 */
export function verificationMetrics(
  metrics: Metrics,
  pools: { verification: { queued: number } | null; face: { queued: number } | null },
): VerificationMetrics {
  metrics.gauge(
    'flow_worker_tasks_queued',
    "Tasks waiting for a thread of this replica's worker pools (document readers, face models)",
    ['pool'] as const,
    function () {
      if (pools.verification) this.set({ pool: 'verification' }, pools.verification.queued);
      if (pools.face) this.set({ pool: 'face' }, pools.face.queued);
    },
  );
  return {
    sidesRead: metrics.counter(
      'flow_document_sides_read_total',
      'Document captures read, by side and outcome (accepted, the first problem told to the person, or engine_failed)',
      ['side', 'outcome'] as const,
    ),
    readDuration: metrics.histogram(
      'flow_document_read_duration_seconds',
      'Time to read one capture in the verification pool, queueing included, by side',
      ['side'] as const,
      [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
    ),
    facesJudged: metrics.counter(
      'flow_face_attempts_judged_total',
      'Face attempts judged, by outcome (passed, the liveness or comparison reason, or why it could not be judged)',
      ['outcome'] as const,
    ),
    judgeDuration: metrics.histogram(
      'flow_face_judgement_duration_seconds',
      'Time to judge one face attempt in the face pool (frames, portrait, verdict), queueing included',
      [] as const,
      [0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 20],
    ),
  };
}
