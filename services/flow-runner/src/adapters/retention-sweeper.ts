import type { Logger, Metrics } from '@idv/kit';
import type { ArtefactStore } from '../domain/ports';
import type { RetentionRepository } from './retention.repository';

const BATCH = 200;

/** What a sweep removes, as the metric's `kind` label and the log line's keys. */
export type RetentionKind = 'artefact' | 'flow_data' | 'evidence_download';

export interface RetentionSweepResult {
  artefact: number;
  flow_data: number;
  evidence_download: number;
}

/**
 * Deletes personal data once its retention period is over: captured images of every kind (with what was
 * read from each, by cascade) `retentionMs` after capture; the document data in a flow's state (the read
 * document, the registry query) and its finished registry checks `retentionMs` after the flow's last
 * change; evidence download audit rows after `auditRetentionMs`. The flow's verdict, reasons and step
 * statuses stay. Every replica may run it: each batch skips rows another replica is deleting.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
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
  }

  start(): void {
    const tick = () => {
      this.running = this.sweep().then(() => {
        this.running = null;
        if (this.timer) this.timer = setTimeout(tick, this.options.intervalMs);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  /** Removes everything past retention at `now`, a batch at a time; returns how much of each kind went. */
  async sweep(now: Date = new Date()): Promise<RetentionSweepResult> {
    const cutoff = new Date(now.getTime() - this.options.retentionMs);
    const auditCutoff = new Date(now.getTime() - this.options.auditRetentionMs);
    const { artefacts, retention } = this.deps;
    const result: RetentionSweepResult = { artefact: 0, flow_data: 0, evidence_download: 0 };
    const drain = async (kind: RetentionKind, batch: () => Promise<number>) => {
      for (;;) {
        const count = await batch();
        result[kind] += count;
        if (count > 0) this.deleted.inc({ kind }, count);
        if (count < BATCH) return;
      }
    };
    try {
      await drain('artefact', () => artefacts.deleteCapturedBefore(cutoff, BATCH));
      await drain('flow_data', () => retention.removeFlowDataBefore(cutoff, BATCH));
      await drain('evidence_download', () => retention.deleteDownloadsBefore(auditCutoff, BATCH));
      this.lastSweep.set(Date.now() / 1000);
    } catch (error) {
      this.failures.inc();
      this.deps.logger.warn({ err: error, ...result }, 'retention sweep failed; will retry');
    }
    // Counts only: never a session id, an artefact id or anything that was read.
    if (result.artefact + result.flow_data + result.evidence_download > 0) {
      this.deps.logger.info({ ...result }, 'personal data past retention removed');
    }
    return result;
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
