import {
  retentionJob,
  sweepRetention,
  type BackgroundJob,
  type Logger,
  type Metrics,
  type RetentionRule,
  type RetentionSweep,
} from '@idv/kit';
import type { ArtefactStore } from '../domain/ports';
import type { RetentionRepository } from '../adapters/retention.repository';

const BATCH = 200;

/** What a sweep removes, as the metric's `kind` label and the log line's keys. */
export type RetentionKind = 'artefact' | 'flow_data' | 'evidence_download';

export interface RetentionSweepResult {
  artefact: number;
  flow_data: number;
  evidence_download: number;
}

/**
 * Deletes personal data once its retention period is over, as the kit's table-driven retention sweep
 * (job `flow-retention`): captured images of every kind (with what was read from each, by cascade)
 * `retentionMs` after capture; the document data in a flow's state (the read document, the registry
 * query) and its finished registry checks `retentionMs` after the flow's last change; evidence download
 * audit rows after `auditRetentionMs`. The flow's verdict, reasons and step statuses stay. Every replica
 * may run it: each batch skips rows another replica is deleting.
 */
export class RetentionSweeper {
  private readonly job: BackgroundJob;
  private readonly deleted;
  private readonly failures;
  private readonly lastSweep;

  constructor(
    private readonly deps: { artefacts: ArtefactStore; retention: RetentionRepository; logger: Logger; metrics: Metrics },
    private readonly options: { retentionMs: number; auditRetentionMs: number; intervalMs: number },
  ) {
    this.deleted = deps.metrics.counter('retention_deleted_total', 'Personal data removed after its retention period, by kind', [
      'kind',
    ] as const);
    this.failures = deps.metrics.counter(
      'retention_sweep_errors_total',
      'Retention sweeps that failed (retried at the next one)',
    );
    this.lastSweep = deps.metrics.gauge('retention_last_sweep_seconds', 'Unix time of the last retention sweep that completed');
    this.job = retentionJob({
      name: 'flow-retention',
      logger: deps.logger,
      metrics: deps.metrics,
      intervalMs: options.intervalMs,
      sweep: (now) => this.sweepAt(now),
    });
  }

  start(): Promise<void> {
    return this.job.start();
  }

  /** The flow-runner's retention table: what goes, after how long, a batch of how many at a time. */
  private rules(): RetentionRule[] {
    const { artefacts, retention } = this.deps;
    return [
      {
        what: 'artefact',
        ageMs: this.options.retentionMs,
        batch: BATCH,
        remove: (cutoff, batch) => artefacts.deleteCapturedBefore(cutoff, batch),
      },
      {
        what: 'flow_data',
        ageMs: this.options.retentionMs,
        batch: BATCH,
        remove: (cutoff, batch) => retention.removeFlowDataBefore(cutoff, batch),
      },
      {
        what: 'evidence_download',
        ageMs: this.options.auditRetentionMs,
        batch: BATCH,
        remove: (cutoff, batch) => retention.deleteDownloadsBefore(cutoff, batch),
      },
    ] satisfies (RetentionRule & { what: RetentionKind })[];
  }

  /** Removes everything past retention at `now`, a batch at a time; returns how much of each kind went. */
  async sweep(now: Date = new Date()): Promise<RetentionSweepResult> {
    const sweep = await this.sweepAt(now);
    return {
      artefact: sweep.removed.artefact ?? 0,
      flow_data: sweep.removed.flow_data ?? 0,
      evidence_download: sweep.removed.evidence_download ?? 0,
    };
  }

  private async sweepAt(now: Date): Promise<RetentionSweep> {
    const sweep = await sweepRetention(this.rules(), now, (kind, count) => this.deleted.inc({ kind }, count));
    const result = {
      artefact: sweep.removed.artefact ?? 0,
      flow_data: sweep.removed.flow_data ?? 0,
      evidence_download: sweep.removed.evidence_download ?? 0,
    };
    if (sweep.error === undefined) this.lastSweep.set(Date.now() / 1000);
    else {
      this.failures.inc();
      this.deps.logger.warn({ err: sweep.error, ...result }, 'retention sweep failed; will retry');
    }
    // Counts only: never a session id, an artefact id or anything that was read.
    if (result.artefact + result.flow_data + result.evidence_download > 0) {
      this.deps.logger.info({ ...result }, 'personal data past retention removed');
    }
    return sweep;
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
