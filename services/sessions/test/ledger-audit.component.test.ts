import path from 'node:path';
import { createLogger, createMetrics, createPool, type Metrics } from '@idv/kit';
import { privateServiceDatabase } from '@idv/testkit';
import type pg from 'pg';
import { LedgerAudit } from '../src/jobs/ledger-audit';

/**
 * The token-ledger audit against a real PostgreSQL database of its own (migrated by the service's
 * migration runner), so the walk sees exactly the accounts seeded here. Its passes are called directly
 * (`auditOnce`), as the background job would call them, with a batch of 3 over 7 accounts: a round
 * takes three passes.
 */
const BATCH = 3;
const ANOMALY_LOG = 'token balance disagrees with its ledger';

let database: Awaited<ReturnType<typeof privateServiceDatabase>>;
let pool: pg.Pool;
const logLines: string[] = [];
let sessionSeq = 0;

/** An account with its ledger entries (positive: credit, negative: debit) and a stored balance. */
async function seedAccount(accountId: string, entries: number[], balance: number): Promise<void> {
  for (const tokens of entries) {
    const debit = tokens < 0;
    await pool.query(`INSERT INTO balance_ledger (account_id, kind, tokens, session_id) VALUES ($1, $2, $3, $4)`, [
      accountId,
      debit ? 'debit' : 'credit',
      Math.abs(tokens),
      debit ? `ses_audit_${++sessionSeq}` : null,
    ]);
  }
  await pool.query(`INSERT INTO balances (account_id, balance) VALUES ($1, $2)`, [accountId, balance]);
}

beforeAll(async () => {
  database = await privateServiceDatabase({
    label: 'ledger_audit',
    schema: 'sessions',
    migrationsDir: path.join(__dirname, '..', 'migrations'),
  });
  pool = createPool({ url: database.url, schema: 'sessions', max: 2 });
  // The audit is there for what the schema should have prevented (a restore, a hand-made fix): this
  // database of its own drops the guard so a negative balance can be seeded.
  await pool.query(`ALTER TABLE balances DROP CONSTRAINT balances_balance_check`);

  // Seven accounts in id order; the two wrong ones fall in different batches (first and second).
  await seedAccount('acct_audit_1', [100, -3, -2], 95);
  await seedAccount('acct_audit_2', [10, -5], 7); // the ledger says 5
  await seedAccount('acct_audit_3', [], 0); // no ledger at all: 0 is right
  await seedAccount('acct_audit_4', [50], 50);
  await seedAccount('acct_audit_5', [1, -3], -2); // agrees with its ledger, but negative
  await seedAccount('acct_audit_6', [20, 20, -40], 0);
  await seedAccount('acct_audit_7', [8], 8);
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** One round of the walk: passes until one checks fewer than a batch; returns each pass's count. */
async function walkRound(audit: LedgerAudit): Promise<number[]> {
  const passes: number[] = [];
  while (passes.length < 10) {
    const checked = await audit.auditOnce();
    passes.push(checked);
    if (checked < BATCH) return passes;
  }
  throw new Error(`the walk never ended its round: ${JSON.stringify(passes)}`);
}

/** The gauge as a scrape reads it, through the registry (its collect runs). */
async function anomaliesGauge(metrics: Metrics): Promise<number> {
  const text = await metrics.registry.metrics();
  const sample = /^token_ledger_anomalies(?:\{[^}]*\})? (\S+)$/m.exec(text);
  if (!sample) throw new Error('token_ledger_anomalies is not in the registry');
  return Number(sample[1]);
}

function anomalyLogs(): Array<{ account_id: string; balance: number; ledger: number }> {
  return logLines.filter((line) => line.includes(ANOMALY_LOG)).map((line) => JSON.parse(line));
}

describe('token ledger audit', () => {
  test('when accounts are walked in batches, then the gauge counts the wrong and the negative ones, each logged once, and a corrected one stops counting', async () => {
    const metrics = createMetrics('ledger-audit-test');
    const logger = createLogger({ service: 'ledger-audit-test', destination: { write: (line: string) => logLines.push(line) } });
    const audit = new LedgerAudit({ pool, logger, metrics, batch: BATCH });
    expect(await anomaliesGauge(metrics)).toBe(0);

    // The first pass sees accounts 1-3: only the drifted one so far.
    expect(await audit.auditOnce()).toBe(BATCH);
    expect(await anomaliesGauge(metrics)).toBe(1);
    expect(await walkRound(audit)).toEqual([3, 1]);
    expect(await anomaliesGauge(metrics)).toBe(2);
    expect(anomalyLogs()).toEqual([
      expect.objectContaining({ level: 'error', account_id: 'acct_audit_2', balance: 7, ledger: 5 }),
      expect.objectContaining({ level: 'error', account_id: 'acct_audit_5', balance: -2, ledger: -2 }),
    ]);

    // A second round finds the same two: still counted, not logged again.
    expect(await walkRound(audit)).toEqual([3, 3, 1]);
    expect(await anomaliesGauge(metrics)).toBe(2);
    expect(anomalyLogs()).toHaveLength(2);

    // An operator corrects the drifted balance: the next round no longer counts it.
    await pool.query(`UPDATE balances SET balance = 5 WHERE account_id = 'acct_audit_2'`);
    expect(await walkRound(audit)).toEqual([3, 3, 1]);
    expect(await anomaliesGauge(metrics)).toBe(1);
    expect(anomalyLogs()).toHaveLength(2);
  });
});
