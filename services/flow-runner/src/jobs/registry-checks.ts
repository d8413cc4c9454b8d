import { BackgroundJob, ageSeconds, scrapeRead } from '@idv/kit';
import type { ClaimedRegistryCheck } from '../adapters/registry-checks.repository';
import {
  REGISTRY_CHECK_BATCH,
  RegistryCheckWork,
  type RegistryCheckDeps,
  type RegistryCheckWorkOptions,
} from '../use-cases/registry-check-work';

/** Claims of one check that ended without an outcome, once its session no longer waits, before it is set aside. */
const MAX_UNFINISHED_CLAIMS = 5;

export interface RegistryCheckRunnerOptions extends RegistryCheckWorkOptions {
  intervalMs?: number;
}

/** Default poll period: one scaled minute, between 20 ms and 1 s (as the sessions service's timers). */
export function defaultRegistryPollInterval(timeScale: number): number {
  return Math.min(1000, Math.max(20, Math.round(60_000 * timeScale)));
}

/**
 * The registry checks on every replica, as the kit's background job `flow-registry-checks` (claimed work):
 * up to REGISTRY_CHECK_BATCH checks in flight per replica, each leased; it wakes at once when this
 * replica schedules a check, at the next check's due time, or at the poll. A check whose claims keep
 * ending without an outcome is set aside (done, `dead_lettered`, in `job_items_total`) once its session
 * no longer waits for it: the session has been abandoned by then, and nothing is decided silently.
 */
export class RegistryCheckRunner {
  private readonly job: BackgroundJob<ClaimedRegistryCheck>;
  private readonly checksWork: RegistryCheckWork;

  constructor(deps: RegistryCheckDeps, options: RegistryCheckRunnerOptions) {
    const checksWork = new RegistryCheckWork(deps, options);
    this.checksWork = checksWork;
    const intervalMs = options.intervalMs ?? defaultRegistryPollInterval(options.timeScale);
    const checks = deps.checks;
    // One bounded read per scrape for the three gauges; a failed read keeps their last values.
    const backlog = scrapeRead(() => checks.openBacklog());
    deps.metrics.gauge('flow_registry_checks_open', 'Registry checks not finished yet (all replicas)', [], async function () {
      const read = await backlog();
      if (read) this.set(read.open);
    });
    deps.metrics.gauge('registry_checks_pending', 'Registry checks not finished yet (all replicas)', [], async function () {
      const read = await backlog();
      if (read) this.set(read.open);
    });
    deps.metrics.gauge(
      'registry_checks_oldest_pending_age_seconds',
      'Age of the oldest registry check not finished yet, 0 when none',
      [],
      async function () {
        const read = await backlog();
        if (read) this.set(ageSeconds(read.oldestCreatedAt));
      },
    );
    this.job = new BackgroundJob<ClaimedRegistryCheck>({
      name: 'flow-registry-checks',
      logger: deps.logger,
      metrics: deps.metrics,
      idleMs: intervalMs,
      backoff: { minMs: intervalMs, maxMs: Math.max(intervalMs, 5_000) },
      backlog: () => checksWork.backlog(),
      work: {
        kind: 'claimed',
        concurrency: REGISTRY_CHECK_BATCH,
        batch: REGISTRY_CHECK_BATCH,
        claim: (limit) => checksWork.claim(limit),
        handle: (check) => checksWork.work(check),
        keyOf: (check) => check.id,
        dueAt: (check) => check.dueAt,
        deadLetter: {
          after: (check) => (checksWork.heldForSession(check) ? Infinity : MAX_UNFINISHED_CLAIMS),
          earlierFailures: (check) => check.earlierFailures,
          move: (check) => checks.markDone(check, 'dead_lettered'),
        },
        nextDueInMs: () => checksWork.nextDueInMs(),
      },
    });
  }

  start(): Promise<void> {
    return this.job.start();
  }

  /** A check was scheduled here: look for it now. */
  wake(): void {
    this.job.wake();
  }

  /** Claims and works one batch of due checks now, outside the job; returns how many were claimed. */
  runOnce(): Promise<number> {
    return this.checksWork.runOnce();
  }

  /** Stops claiming; the checks in flight finish first. */
  stop(): Promise<void> {
    return this.job.stop();
  }
}
