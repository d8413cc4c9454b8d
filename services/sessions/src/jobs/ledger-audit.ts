import { BackgroundJob, type Logger, type Metrics, type Pool } from '@idv/kit';
import { auditBatch, type AuditedAccount } from '../adapters/ledger-audit.repository';

/** Accounts checked per pass, and the pause between passes: a full round of 10 000 accounts takes ~5 min. */
const AUDIT_BATCH = 200;
const AUDIT_INTERVAL_MS = 6_000;

export interface LedgerAuditOptions {
  pool: Pool;
  logger: Logger;
  metrics: Metrics;
  batch?: number;
  intervalMs?: number;
}

/** A balance the ledger does not explain: it differs from the ledger's sum, or it is negative. */
export function isAnomalous(account: AuditedAccount): boolean {
  return account.balance < 0 || account.balance !== account.ledger;
}

/**
 * Walks the accounts in id order, a batch per pass, and compares each stored balance with its ledger
 * (the kit's background job `ledger-audit`). `token_ledger_anomalies` is the number of accounts found
 * wrong as the walk last saw them: an account is counted from the pass that finds it wrong until a
 * pass finds it right. The scrape only reads that number; the walk starts over after the last account.
 */
export class LedgerAudit {
  private readonly job: BackgroundJob;
  private readonly anomalies = new Set<string>();
  private cursor = '';

  constructor(private readonly options: LedgerAuditOptions) {
    const anomalies = this.anomalies;
    options.metrics.gauge(
      'token_ledger_anomalies',
      'Accounts whose stored token balance disagrees with their ledger or is negative (periodic audit)',
      [],
      function () {
        this.set(anomalies.size);
      },
    );
    this.job = new BackgroundJob({
      name: 'ledger-audit',
      logger: options.logger,
      metrics: options.metrics,
      idleMs: options.intervalMs ?? AUDIT_INTERVAL_MS,
      work: { kind: 'periodic', pass: async () => ({ done: await this.auditOnce(), more: false }) },
    });
  }

  get anomalyCount(): number {
    return this.anomalies.size;
  }

  /** Audits the next batch; returns how many accounts it checked (fewer than a batch: the round ended). */
  async auditOnce(): Promise<number> {
    const limit = this.options.batch ?? AUDIT_BATCH;
    const accounts = await auditBatch(this.options.pool, this.cursor, limit);
    for (const account of accounts) {
      if (!isAnomalous(account)) {
        this.anomalies.delete(account.accountId);
        continue;
      }
      if (!this.anomalies.has(account.accountId)) {
        // Ids and amounts only: enough to find the account, nothing personal.
        this.options.logger.error(
          { account_id: account.accountId, balance: account.balance, ledger: account.ledger },
          'token balance disagrees with its ledger',
        );
      }
      this.anomalies.add(account.accountId);
    }
    this.cursor = accounts.length < limit ? '' : (accounts[accounts.length - 1]?.accountId ?? '');
    return accounts.length;
  }

  start(): Promise<void> {
    return this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
