import { InternalCallError, type EvidenceDownload, type EvidenceDownloadOutcome, type SessionId } from '@idv/contracts';
import type { AuditRecord } from '../adapters/audit.repository';
import { auditCsvCells } from './audit';
import type { DashboardPorts } from './ports';
import type { Viewer } from './sign-in';

/**
 * A session's access trail: who saw its personal data. Two sources, merged by time: the dashboard's audit
 * entries naming the session (data shown, images shown, each image opened) and the flow-runner's log of its
 * evidence links' uses (the public API's downloads, with the address they came from, never the link).
 */
export type TrailEntry =
  { kind: 'audit'; at: Date; record: AuditRecord } | { kind: 'download'; at: Date; download: EvidenceDownload };

/** The downloads of the account's session's evidence links, newest first (none for a session the flow-runner never saw). */
export async function evidenceDownloadsOf(
  ports: DashboardPorts,
  viewer: Viewer,
  sessionId: SessionId,
): Promise<EvidenceDownload[]> {
  try {
    const answer = await ports.platform.call('listSessionEvidenceDownloads', { id: viewer.accountId, sessionId });
    return answer.data;
  } catch (error) {
    // The session is the account's (the sessions service said so): a flow-runner that knows nothing of it has no download.
    if (error instanceof InternalCallError && error.status === 404) return [];
    throw error;
  }
}

/** Both sources in one list, newest first; entries of the same instant keep each source's order. */
export function mergeTrail(audit: readonly AuditRecord[], downloads: readonly EvidenceDownload[]): TrailEntry[] {
  const entries: TrailEntry[] = [
    ...audit.map((record): TrailEntry => ({ kind: 'audit', at: record.at, record })),
    ...downloads.map((download): TrailEntry => ({ kind: 'download', at: new Date(download.at), download })),
  ];
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => b.entry.at.getTime() - a.entry.at.getTime() || a.index - b.index)
    .map(({ entry }) => entry);
}

/** The audit export's action name of an evidence link's use, by how it ended. */
export const DOWNLOAD_ACTIONS: Record<EvidenceDownloadOutcome, string> = {
  served: 'session.evidence_downloaded',
  expired: 'session.evidence_link_expired',
  bad_signature: 'session.evidence_link_invalid',
};

/**
 * One entry as a row of the audit export's columns: a download's actor is the evidence link (`evidence_link`,
 * no name, no e-mail), its target the session and the artifact, its address the one it came from.
 */
export function trailCsvCells(entry: TrailEntry, sessionId: SessionId): string[] {
  if (entry.kind === 'audit') return auditCsvCells(entry.record);
  const { download } = entry;
  return [
    download.at,
    'evidence_link',
    '',
    '',
    DOWNLOAD_ACTIONS[download.outcome],
    `${sessionId}/${download.artifact}`,
    download.client_address,
  ];
}
