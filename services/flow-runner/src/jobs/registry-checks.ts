import { BackgroundJob, type Logger, type Metrics } from '@idv/kit';
import type { RegistryChecksRepository } from '../adapters/registry-checks.repository';
import type { RegistryPort, SessionsPort } from '../domain/ports';
import type { FlowService } from '../use-cases/flow-service';
import { REGISTRY_CHECK_BATCH, RegistryCheckWork, type RegistryCheckWorkOptions } from '../use-cases/registry-check-work';

export interface RegistryCheckRunnerOptions extends RegistryCheckWorkOptions {
  intervalMs?: number;
}

/** Default poll period: one scaled minute, between 20 ms and 1 s (as the sessions service's timers). */
export function defaultRegistryPollInterval(timeScale: number): number {
  return Math.min(1000, Math.max(20, Math.round(60_000 * timeScale)));
}

/**
 * The registry checks on every replica, as the kit's background job `flow-registry-checks`: each pass
 * works one batch (`RegistryCheckWork`); it wakes at once when this replica schedules a check, otherwise
 * polls.
 */
export class RegistryCheckRunner {
  private readonly job: BackgroundJob;
  private readonly checksWork: RegistryCheckWork;

  constructor(
    deps: {
      checks: RegistryChecksRepository;
      flows: FlowService;
      registry: RegistryPort | null;
      sessions: Pick<SessionsPort, 'hold'>;
      logger: Logger;
      metrics: Metrics;
    },
    options: RegistryCheckRunnerOptions,
  ) {
    this.checksWork = new RegistryCheckWork(deps, options);
    const intervalMs = options.intervalMs ?? defaultRegistryPollInterval(options.timeScale);
    const checks = deps.checks;
    deps.metrics.gauge('flow_registry_checks_open', 'Registry checks not finished yet (all replicas)', [], async function () {
      this.set(await checks.countOpen());
    });
    this.job = new BackgroundJob({
      name: 'flow-registry-checks',
      logger: deps.logger,
      metrics: deps.metrics,
      idleMs: intervalMs,
      // A failed pass is retried after one interval, as the checks it leased come due again by themselves.
      backoff: { minMs: intervalMs, maxMs: intervalMs },
      // Open checks, due or waiting for their next attempt; the age of the oldest is not read here.
      backlog: async () => ({ depth: await checks.countOpen(), oldestDueAt: null }),
      work: {
        kind: 'periodic',
        pass: async () => {
          const claimed = await this.runOnce();
          return { done: claimed, more: claimed >= REGISTRY_CHECK_BATCH };
        },
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

  /** Claims and works one batch of due checks; returns how many were claimed. */
  runOnce(): Promise<number> {
    return this.checksWork.runOnce();
  }

  /** Stops claiming; the batch being worked finishes first. */
  stop(): Promise<void> {
    return this.job.stop();
  }
}
