import { DAY, MINUTE, scaled, sleep, withTransaction, type Logger, type Metrics, type Pool } from '@idv/kit';
import * as idempotency from '../adapters/idempotency.repository';
import * as sessions from '../adapters/sessions.repository';
import { IDEMPOTENCY_RETENTION_HOURS } from '../domain/idempotency';
import { unreachedSteps } from '../domain/session';
import type { SessionsService } from './sessions.service';

export type TimerKind = 'expiry' | 'abandonment';
const KINDS: readonly TimerKind[] = ['expiry', 'abandonment'];
const BATCH = 100;
const CLEANUP_EVERY_MS = 10 * MINUTE;
const RETENTION_BATCH = 200;

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
 * Fires the session timers whose deadline (a column) has passed: link expiry and abandonment.
 * Deadlines live in PostgreSQL, so they survive restarts; each pass locks due rows with
 * `FOR UPDATE SKIP LOCKED` and transitions them in the same transaction, so with several replicas
 * a timer fires exactly once. Also deletes idempotency records past their retention, and removes the
 * document data of sessions past theirs.
 */
export class TimerSweeper {
  private running = false;
  private loop: Promise<void> | null = null;
  private lastCleanup = 0;
  private readonly intervalMs: number;
  private readonly sweeps;
  private readonly fired;
  private readonly documentsRemoved;

  constructor(private readonly options: TimerSweeperOptions) {
    this.intervalMs = options.intervalMs ?? defaultSweepInterval(options.timeScale);
    this.sweeps = options.metrics.counter('session_timer_sweeps_total', 'Timer sweeper passes');
    this.fired = options.metrics.counter('session_timers_fired_total', 'Session timers fired, by kind', ['kind']);
    this.documentsRemoved = options.metrics.counter(
      'session_documents_removed_total',
      'result.document of sessions removed after the retention period',
    );
  }

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let busy = false;
      try {
        for (const kind of KINDS) busy = (await this.sweepOnce(kind)) === BATCH || busy;
        this.sweeps.inc();
        await this.cleanup();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'timer sweep failed; will retry');
      }
      if (!busy && this.running) await sleep(this.intervalMs);
    }
  }

  /** Fires up to one batch of due timers of `kind`; returns how many fired. */
  async sweepOnce(kind: TimerKind): Promise<number> {
    const { service } = this.options;
    return withTransaction(this.options.pool, async (tx) => {
      const due = await sessions.lockDue(tx, kind, service.now(), BATCH);
      for (const session of due) {
        const config = await service.config(tx, session.projectId, session.configVersion);
        const steps = unreachedSteps(config);
        await service.apply(tx, session, kind === 'expiry' ? { kind: 'expire', steps } : { kind: 'abandon', steps });
      }
      if (due.length > 0) this.fired.inc({ kind }, due.length);
      return due.length;
    });
  }

  private async cleanup(): Promise<void> {
    if (Date.now() - this.lastCleanup < CLEANUP_EVERY_MS) return;
    this.lastCleanup = Date.now();
    const deleted = await idempotency.deleteOlderThan(this.options.pool, IDEMPOTENCY_RETENTION_HOURS);
    if (deleted > 0) this.options.logger.info({ deleted }, 'idempotency records past retention deleted');
    await this.removeDocuments(new Date());
  }

  /**
   * Removes `result.document` from every session completed more than the retention period before `now`,
   * a batch per transaction (replicas share the work: each batch skips rows another one holds). Returns
   * how many sessions; the log line carries the count only.
   */
  async removeDocuments(now: Date): Promise<number> {
    const cutoff = new Date(now.getTime() - (this.options.documentRetentionMs ?? 30 * DAY));
    let total = 0;
    for (;;) {
      const count = await sessions.removeDocumentsCompletedBefore(this.options.pool, cutoff, now, RETENTION_BATCH);
      total += count;
      if (count > 0) this.documentsRemoved.inc(count);
      if (count < RETENTION_BATCH) break;
    }
    if (total > 0) this.options.logger.info({ removed: total }, 'document data of sessions past retention removed');
    return total;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
