import { RetentionJob, type Logger, type Metrics, type Pool } from '@idv/kit';
import { EVENT_DOCUMENT, eventRetentionRules } from '../use-cases/event-retention';

/**
 * Every `intervalMs`, the events past retention (ARTEFACT_RETENTION_DAYS) lose their document data,
 * through the kit's retention job `webhook-retention`; every replica may run it. A failed sweep runs
 * again after a backoff, at the latest at the next interval.
 */
export class EventRetentionSweeper {
  private readonly job: RetentionJob;

  constructor(deps: { pool: Pool; logger: Logger; metrics: Metrics }, options: { retentionMs: number; intervalMs: number }) {
    this.job = new RetentionJob({
      name: 'webhook-retention',
      logger: deps.logger,
      metrics: deps.metrics,
      intervalMs: options.intervalMs,
      rules: eventRetentionRules(deps, options.retentionMs),
    });
  }

  start(): Promise<void> {
    return this.job.start();
  }

  /** One pass over everything past retention at `now`; returns how many events lost their document. */
  async sweep(now: Date = new Date()): Promise<number> {
    return (await this.job.sweep(now))[EVENT_DOCUMENT] ?? 0;
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
