import { MODES, SESSION_STATUSES, monthIndex, shiftMonth, type Mode, type SessionStatus, type Usage } from '@idv/contracts';

/** [from, to) of a `YYYY-MM` month in UTC. */
export function monthRange(month: string): { from: Date; to: Date } {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  return { from: new Date(Date.UTC(year, mon - 1, 1)), to: new Date(Date.UTC(year, mon, 1)) };
}

/** Counts per mode with every status present (zeros included) plus a `total`. */
export function usageCounts(rows: { mode: Mode; status: SessionStatus; count: number }[]): Record<Mode, Record<string, number>> {
  const empty = () => Object.fromEntries([...SESSION_STATUSES, 'total'].map((s) => [s, 0])) as Record<string, number>;
  const out = Object.fromEntries(MODES.map((m) => [m, empty()])) as Record<Mode, Record<string, number>>;
  for (const row of rows) {
    out[row.mode][row.status] = row.count;
    out[row.mode].total = (out[row.mode].total ?? 0) + row.count;
  }
  return out;
}

/** Every month from `from` to `to`, both included, oldest first. */
export function monthsBetween(from: string, to: string): string[] {
  return Array.from({ length: monthIndex(to) - monthIndex(from) + 1 }, (_, offset) => shiftMonth(from, offset));
}

/** Each month of a range as the public usage answers it, from counts and debits grouped by month (empty months included). */
export function usageOfMonths(
  months: readonly string[],
  counts: readonly { month: string; mode: Mode; status: SessionStatus; count: number }[],
  debits: readonly { month: string; tokens: number }[],
): Usage[] {
  return months.map((month) => ({
    object: 'usage' as const,
    month,
    sessions: usageCounts(counts.filter((row) => row.month === month)),
    tokens_debited: debits.find((row) => row.month === month)?.tokens ?? 0,
  }));
}

/** Columns of the usage CSV export: ids, states and billing only, never personal data. */
export const CSV_COLUMNS = [
  'session_id',
  'mode',
  'project_id',
  'config_version',
  'status',
  'outcome',
  'created_at',
  'completed_at',
  'tokens_debited',
] as const;
