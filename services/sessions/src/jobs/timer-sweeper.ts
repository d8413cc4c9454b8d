import {
  BackgroundJob,
  DAY,
  HOUR,
  MINUTE,
  RetentionJob,
  scaled,
  type Logger,
  type Metrics,
  type Pool,
  type RetentionRule,
} from '@idv/kit';
import * as idempotency from '../adapters/idempotency.repository';
import * as sessions from '../adapters/sessions.repository';
import { IDEMPOTENCY_RETENTION_HOURS } from '../domain/idempotency';
import { TIMER_KINDS, fireDueTimers, type TimerKind } from '../use-cases/fire-timers';
import type { SessionsService } from '../use-cases/sessions.service';
const BATCH = 100;
const CLEANUP_EVERY_MS = 10 * MINUTE;
const RETENTION_BATCH = 200;
const IDEMPOTENCY_RECORD = 'idempotency_record';
const SESSION_DOCUMENT = 'session_document';

export interface TimerSweeperOptions {
  pool: Pool;
  service: SessionsService;
  logger: Logger;
  metrics: Metrics;
  timeScale: number;
  intervalMs?: number;
  /** `result.document` is removed this long after the session completed (ARTEFACT_RETENTION_DAYS); default 30 days. */
  documentRetentionMs?: number;
}

/** Default poll period: one scaled minute, between 20 ms and 1 s. */
export function defaultSweepInterval(timeScale: number): number {
  return Math.min(1000, Math.max(20, scaled(MINUTE, timeScale)));
}

/**
 * The session timers whose deadline (a column) has passed, link expiry and abandonment, fired by the
 * kit's background job `session-timers` (each batch one run of the `fireDueTimers` use case). Deadlines
 * live in PostgreSQL, so they survive restarts. Beside it, the kit's retention job (
 * `session-retention`, every 10 minutes) deletes idempotency records past their retention and removes
 * the document data of sessions past theirs.
 */
export class TimerSweeper {
  private readonly timers: BackgroundJob;
  private readonly cleanup: RetentionJob;
  private readonly sweeps;
  private readonly fired;

  constructor(private readonly options: TimerSweeperOptions) {
    const { logger, metrics, pool } = options;
    const intervalMs = options.intervalMs ?? defaultSweepInterval(options.timeScale);
    this.sweeps = metrics.counter('session_timer_sweeps_total', 'Timer sweeper passes');
    this.fired = metrics.counter('session_timers_fired_total', 'Session timers fired, by kind', ['kind']);
    this.timers = new BackgroundJob({
      name: 'session-timers',
      logger,
      metrics,
      idleMs: intervalMs,
      // A failed sweep is retried after one interval, as before the kit's loop: timers are due at once.
      backoff: { minMs: intervalMs, maxMs: intervalMs },
      backlog: () => sessions.dueTimers(pool, options.service.now()),
      work: {
        kind: 'periodic',
        pass: async () => {
          let done = 0;
          let more = false;
          for (const kind of TIMER_KINDS) {
            const fired = await this.sweepOnce(kind);
            done += fired;
            more = fired === BATCH || more;
          }
          this.sweeps.inc();
          return { done, more };
        },
      },
    });
    this.cleanup = new RetentionJob({
      name: 'session-retention',
      logger,
      metrics,
      intervalMs: CLEANUP_EVERY_MS,
      rules: this.retentionRules(),
    });
  }

  async start(): Promise<void> {
    await this.timers.start();
    await this.cleanup.start();
  }

  /** Fires up to one batch of due timers of `kind`; returns how many fired. */
  async sweepOnce(kind: TimerKind): Promise<number> {
    const fired = await fireDueTimers(this.options.pool, this.options.service, kind, BATCH);
    if (fired > 0) this.fired.inc({ kind }, fired);
    return fired;
  }

  /**
   * The sessions service's retention table: idempotency records past IDEMPOTENCY_RETENTION_HOURS (one
   * statement), and `result.document` of sessions completed more than the retention period before,
   * a batch per transaction (replicas share the work: each batch skips rows another one holds).
   */
  private retentionRules(): RetentionRule[] {
    const { pool } = this.options;
    return [
      {
        what: IDEMPOTENCY_RECORD,
        ageMs: IDEMPOTENCY_RETENTION_HOURS * HOUR,
        batch: Number.MAX_SAFE_INTEGER,
        remove: () => idempotency.deleteOlderThan(pool, IDEMPOTENCY_RETENTION_HOURS),
      },
      {
        what: SESSION_DOCUMENT,
        ageMs: this.options.documentRetentionMs ?? 30 * DAY,
        batch: RETENTION_BATCH,
        remove: (cutoff, batch, now) => sessions.removeDocumentsCompletedBefore(pool, cutoff, now, batch),
      },
    ];
  }

  /**
   * Removes `result.document` from every session completed more than the retention period before `now`;
   * returns how many sessions. The log line carries the count only.
   */
  async removeDocuments(now: Date): Promise<number> {
    const removed = await this.cleanup.sweep(now, (rule) => rule.what === SESSION_DOCUMENT);
    return removed[SESSION_DOCUMENT] ?? 0;
  }

  async stop(): Promise<void> {
    await Promise.all([this.timers.stop(), this.cleanup.stop()]);
  }
}
