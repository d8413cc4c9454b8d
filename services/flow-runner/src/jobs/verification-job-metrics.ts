import type { Broker, ConsumerSpec, HandlerOutcome, Metrics } from '@idv/kit';
import { CAPTURE_READINGS_QUEUE } from './capture-reader';
import { FACE_CHECKS_QUEUE } from './face-judge';

/** The verification work by its queue: a document side to read, a face attempt to judge. */
export const VERIFICATION_JOB_KINDS: Readonly<Record<string, string>> = {
  [CAPTURE_READINGS_QUEUE]: 'document',
  [FACE_CHECKS_QUEUE]: 'face',
};

const OUTCOME: Record<HandlerOutcome, string> = { ack: 'done', retry: 'retry', dead: 'rejected' };

interface KindState {
  queue: string;
  running: number;
  /** When the job this replica took last from the queue was published. */
  lastPublishedAt: number | null;
}

/**
 * The verification jobs' metrics. Their durable queue is the broker's (`flow-runner.capture-readings`,
 * `flow-runner.face-checks`): `verification_jobs_queued` is its ready count; a job is running from its
 * delivery to a handler of this replica (waiting for a pool thread included) to its result. The broker
 * does not tell the age of the message at the head of a queue: while some are ready, the oldest waits at
 * most since the publication of the last job taken from it (the queue is FIFO), and that bound is the
 * age reported (since this replica started consuming when it took none yet).
 */
export function instrumentVerificationJobs(
  metrics: Metrics,
  broker: Pick<Broker, 'queueStats'>,
  jobs: readonly ConsumerSpec[],
  now: () => number = Date.now,
): ConsumerSpec[] {
  const startedAt = now();
  const kinds = new Map<string, KindState>();
  const duration = metrics.histogram(
    'verification_job_duration_seconds',
    'One verification job (a document side read, a face attempt judged) from its delivery to its result',
    ['kind', 'outcome'] as const,
    [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128],
  );
  const queued = async (): Promise<Map<string, number> | null> => {
    const stats = await broker.queueStats();
    if (!stats) return null;
    const ready = new Map<string, number>();
    for (const [kind, state] of kinds) {
      const counted = stats.get(state.queue);
      if (counted) ready.set(kind, counted.ready);
    }
    return ready;
  };
  metrics.gauge(
    'verification_jobs_queued',
    'Verification jobs waiting in their queue (all replicas)',
    ['kind'] as const,
    async function () {
      for (const [kind, ready] of (await queued()) ?? []) this.set({ kind }, ready);
    },
  );
  metrics.gauge('verification_jobs_running', 'Verification jobs this replica is working on', ['kind'] as const, function () {
    for (const [kind, state] of kinds) this.set({ kind }, state.running);
  });
  metrics.gauge(
    'verification_jobs_oldest_queued_age_seconds',
    'Upper bound of the wait of the oldest verification job in its queue, 0 when none waits',
    ['kind'] as const,
    async function () {
      const ready = await queued();
      if (!ready) return;
      const at = now();
      for (const [kind, count] of ready) {
        const since = kinds.get(kind)?.lastPublishedAt ?? startedAt;
        this.set({ kind }, count > 0 ? Math.max(0, (at - since) / 1000) : 0);
      }
    },
  );

  return jobs.map((job) => {
    const kind = VERIFICATION_JOB_KINDS[job.queue];
    if (!kind) return job;
    const state: KindState = { queue: job.queue, running: 0, lastPublishedAt: null };
    kinds.set(kind, state);
    return {
      ...job,
      handler: async (event, raw) => {
        const published = typeof raw.properties.timestamp === 'number' ? raw.properties.timestamp : Date.parse(event.occurred_at);
        if (Number.isFinite(published)) state.lastPublishedAt = Math.max(state.lastPublishedAt ?? 0, published);
        const started = now();
        state.running += 1;
        let outcome = 'failed';
        try {
          const result = await job.handler(event, raw);
          outcome = OUTCOME[result];
          return result;
        } finally {
          state.running -= 1;
          duration.observe({ kind, outcome }, (now() - started) / 1000);
        }
      },
    };
  });
}
