import type { Usage } from '@idv/contracts';
import { can } from '../domain/roles';
import { chartRange } from '../domain/usage';
import { auditBeforeServing } from './audit';
import type { DashboardPorts } from './ports';
import type { Viewer } from './sign-in';

export type UsagePage = { kind: 'forbidden' } | { kind: 'usage'; usage: Usage; months: Usage[] };

/**
 * A month's usage and the chart's months that end at it, in one call to the sessions service (one range,
 * two queries grouped by month, whatever the chart's length): every role reads it.
 */
export async function usagePage(ports: DashboardPorts, viewer: Viewer, month: string): Promise<UsagePage> {
  if (!can(viewer.role, 'billing.read')) return { kind: 'forbidden' };
  const range = chartRange(month);
  const answer = await ports.platform.call('getAccountUsageMonths', { id: viewer.accountId }, undefined, range);
  const usage = answer.data.find((entry) => entry.month === month);
  if (!usage) throw new Error(`getAccountUsageMonths: no usage of ${month} in its answer`);
  return { kind: 'usage', usage, months: answer.data };
}

export type UsageExport =
  { kind: 'forbidden' } | { kind: 'csv'; contentType: string; disposition: string; body: ReadableStream<Uint8Array> };

/**
 * The month's usage CSV as the public API exports it: the sessions service's own export, streamed
 * through unread, so it is the same bytes. Audited (`usage.exported`, the month) once the sessions
 * service has answered, before the first byte goes to the browser.
 */
export async function exportUsage(ports: DashboardPorts, viewer: Viewer, month: string, address: string): Promise<UsageExport> {
  if (!can(viewer.role, 'billing.read')) return { kind: 'forbidden' };
  const file = await ports.platform.stream('exportAccountUsageCsv', { id: viewer.accountId }, { month });
  await auditBeforeServing(
    ports,
    { accountId: viewer.accountId, actorId: viewer.userId, action: 'usage.exported', target: month, address },
    file.body,
  );
  return {
    kind: 'csv',
    contentType: file.headers.get('content-type') ?? 'text/csv; charset=utf-8',
    disposition: file.headers.get('content-disposition') ?? `attachment; filename="sessions-${month}.csv"`,
    body: file.body,
  };
}
