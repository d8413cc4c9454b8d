import { RetentionJob, type Logger, type Metrics, type RetentionRule } from '@idv/kit';
import type { ArtefactStore } from '../domain/ports';
import type { RetentionRepository } from '../adapters/retention.repository';

const BATCH = 200;

/** What a sweep removes: the `what` label of `retention_removed_total{job="flow-retention"}`. */
export type RetentionKind = 'artefact' | 'flow_data' | 'evidence_download';

export type RetentionSweepResult = Record<RetentionKind, number>;

/**
 * Deletes personal data once its retention period is over, as the kit's table-driven retention job
 * `flow-retention`: captured images of every kind (with what was read from each, by cascade)
 * `retentionMs` after capture; the document data in a flow's state (the read document, the registry
 * query) and its finished registry checks `retentionMs` after the flow's last change; evidence download
 * audit rows after `auditRetentionMs`. The flow's verdict, reasons and step statuses stay. Every replica
 * may run it: each batch skips rows another replica is deleting.
 */
export class RetentionSweeper {
  private readonly job: RetentionJob;

  constructor(
    deps: { artefacts: ArtefactStore; retention: RetentionRepository; logger: Logger; metrics: Metrics },
    options: { retentionMs: number; auditRetentionMs: number; intervalMs: number },
  ) {
    const { artefacts, retention } = deps;
    const rules = [
      {
        what: 'artefact',
        ageMs: options.retentionMs,
        batch: BATCH,
        remove: (cutoff, batch) => artefacts.deleteCapturedBefore(cutoff, batch),
      },
      {
        what: 'flow_data',
        ageMs: options.retentionMs,
        batch: BATCH,
        remove: (cutoff, batch) => retention.removeFlowDataBefore(cutoff, batch),
      },
      {
        what: 'evidence_download',
        ageMs: options.auditRetentionMs,
        batch: BATCH,
        remove: (cutoff, batch) => retention.deleteDownloadsBefore(cutoff, batch),
      },
    ] satisfies (RetentionRule & { what: RetentionKind })[];
    this.job = new RetentionJob({
      name: 'flow-retention',
      logger: deps.logger,
      metrics: deps.metrics,
      intervalMs: options.intervalMs,
      rules,
    });
  }

  start(): Promise<void> {
    return this.job.start();
  }

  /** Removes everything past retention at `now`, a batch at a time; returns how much of each kind went (throws if it stopped part-way). */
  async sweep(now: Date = new Date()): Promise<RetentionSweepResult> {
    const removed = await this.job.sweep(now);
    return {
      artefact: removed.artefact ?? 0,
      flow_data: removed.flow_data ?? 0,
      evidence_download: removed.evidence_download ?? 0,
    };
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
