import type { Writable } from 'node:stream';
import { configVersionId, type AccountId, type SessionId } from '@idv/contracts';
import { csvLine, writeOrWait, type Pool } from '@idv/kit';
import * as ledger from '../adapters/ledger.repository';
import * as sessions from '../adapters/sessions.repository';
import { CSV_COLUMNS, monthRange, usageCounts } from '../domain/usage';

const CSV_BATCH = 500;

export async function monthlyUsage(pool: Pool, accountId: AccountId, month: string) {
  const { from, to } = monthRange(month);
  const [counts, debited] = await Promise.all([
    sessions.countByModeAndStatus(pool, accountId, from, to),
    ledger.tokensDebited(pool, accountId, from, to),
  ]);
  return { object: 'usage' as const, month, sessions: usageCounts(counts), tokens_debited: debited };
}

/**
 * Streams the month's sessions as CSV, one row per session, in keyset batches: memory stays flat
 * whatever the month's size, and a slow client applies backpressure.
 */
export async function streamUsageCsv(
  pool: Pool,
  accountId: AccountId,
  month: string,
  out: Writable,
  onStart: () => void = () => undefined,
): Promise<void> {
  const { from, to } = monthRange(month);
  let after: { createdAt: Date; id: SessionId } | null = null;
  // The first batch is read before anything is written: a failure then is still a clean problem+json.
  let rows = await sessions.usageBatch(pool, accountId, from, to, after, CSV_BATCH);
  onStart();
  let chunk = csvLine(CSV_COLUMNS);
  for (;;) {
    for (const row of rows) {
      chunk += csvLine([
        row.id,
        row.mode,
        row.projectId,
        configVersionId(row.configVersion),
        row.status,
        row.outcome ?? '',
        row.createdAt.toISOString(),
        row.completedAt ? row.completedAt.toISOString() : '',
        String(row.tokensDebited),
      ]);
    }
    await writeOrWait(out, chunk);
    chunk = '';
    const last = rows[rows.length - 1];
    if (rows.length < CSV_BATCH || !last) break;
    after = { createdAt: last.createdAt, id: last.id };
    rows = await sessions.usageBatch(pool, accountId, from, to, after, CSV_BATCH);
  }
}
