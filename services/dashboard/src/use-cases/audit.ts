import type { Writable } from 'node:stream';
import { csvLine, writeOrWait } from '@idv/kit';
import { appendAudit, listAuditEntries, type AuditEntry, type AuditRecord } from '../adapters/audit.repository';
import { membersOf, type MemberRecord } from '../adapters/members.repository';
import { AUDIT_CSV_COLUMNS, AUDIT_PAGE_SIZE, type AuditFilter } from '../domain/audit';
import { can } from '../domain/roles';
import type { DashboardPorts } from './ports';
import type { Viewer } from './sign-in';

export type AuditPage =
  { kind: 'forbidden' } | { kind: 'entries'; entries: AuditRecord[]; older: number | null; members: MemberRecord[] };

/** The account's audit log for its owners: a page of entries the filter keeps, newest first, and the cursor to older ones. */
export async function auditPage(ports: DashboardPorts, viewer: Viewer, filter: AuditFilter): Promise<AuditPage> {
  if (!can(viewer.role, 'audit.read')) return { kind: 'forbidden' };
  const [found, members] = await Promise.all([
    listAuditEntries(ports.pool, viewer.accountId, filter, AUDIT_PAGE_SIZE + 1),
    membersOf(ports.pool, viewer.accountId),
  ]);
  const entries = found.slice(0, AUDIT_PAGE_SIZE);
  const older = found.length > AUDIT_PAGE_SIZE ? entries[entries.length - 1]!.id : null;
  return { kind: 'entries', entries, older, members };
}

/** Rows the export reads at a time. */
const EXPORT_BATCH = 500;

/**
 * The entries the filter keeps, every one, as CSV: read a batch at a time by the cursor and written as
 * the client takes them. The export is itself an entry (who exported, from where). `onStart` is called
 * once the first batch is read, so a failure before it is still a page.
 */
export async function exportAudit(
  ports: DashboardPorts,
  viewer: Viewer,
  filter: AuditFilter,
  address: string,
  out: Writable,
  onStart: () => void,
): Promise<'forbidden' | 'exported'> {
  if (!can(viewer.role, 'audit.read')) return 'forbidden';
  await appendAudit(ports.pool, { accountId: viewer.accountId, actorId: viewer.userId, action: 'audit.exported', address });
  let rows = await listAuditEntries(ports.pool, viewer.accountId, filter, EXPORT_BATCH);
  onStart();
  let chunk = csvLine(AUDIT_CSV_COLUMNS);
  for (;;) {
    for (const row of rows) chunk += csvLine(auditCsvCells(row));
    await writeOrWait(out, chunk);
    chunk = '';
    const last = rows[rows.length - 1];
    if (rows.length < EXPORT_BATCH || !last) return 'exported';
    rows = await listAuditEntries(ports.pool, viewer.accountId, { ...filter, before: last.id }, EXPORT_BATCH);
  }
}

/** One entry as a CSV row of `AUDIT_CSV_COLUMNS` (the audit export and a session's access trail). */
export function auditCsvCells(row: AuditRecord): string[] {
  const actor =
    row.actor.kind === 'member'
      ? ['member', row.actor.name, row.actor.email]
      : row.actor.kind === 'operator'
        ? ['operator', '', '']
        : row.actor.kind === 'service'
          ? ['service', '', '']
          : ['', '', ''];
  return [row.at.toISOString(), ...actor, row.action, row.target ?? '', row.address ?? ''];
}

/**
 * The audit entry of a file about to be passed on from another service's stream (an image, a CSV), written
 * before a byte goes: when it cannot be written, the stream is let go and the error thrown (nothing unaudited
 * is served).
 */
export async function auditBeforeServing(
  ports: DashboardPorts,
  entry: AuditEntry,
  body: ReadableStream<Uint8Array>,
): Promise<void> {
  try {
    await appendAudit(ports.pool, entry);
  } catch (error) {
    await body.cancel();
    throw error;
  }
}
