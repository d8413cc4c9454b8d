import type { Writable } from 'node:stream';
import { configVersionId, type AccountId, type SessionId, type Usage } from '@idv/contracts';
import { csvLine, writeOrWait, type Pool } from '@idv/kit';
import * as sessions from '../adapters/sessions.repository';
import * as usage from '../adapters/usage.repository';
import { CSV_COLUMNS, monthRange, monthsBetween, usageOfMonths } from '../domain/usage';

const CSV_BATCH = 500;

/**
 * The usage of each month from `from` to `to` (UTC months, both included): two queries grouped by month
 * whatever the range's length, so the dashboard's chart of a year costs what one month does.
 */
export async function monthsUsage(pool: Pool, accountId: AccountId, from: string, to: string): Promise<Usage[]> {
  const range = { from: monthRange(from).from, to: monthRange(to).to };
  const [counts, debits] = await Promise.all([
    usage.countsByMonth(pool, accountId, range.from, range.to),
    usage.debitsByMonth(pool, accountId, range.from, range.to),
  ]);
  return usageOfMonths(monthsBetween(from, to), counts, debits);
}

/** One month's usage (the public `GET /v1/usage`): the range of one month, so both answers are one computation. */
export async function monthlyUsage(pool: Pool, accountId: AccountId, month: string): Promise<Usage> {
  const [found] = await monthsUsage(pool, accountId, month, month);
  return found!;
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
