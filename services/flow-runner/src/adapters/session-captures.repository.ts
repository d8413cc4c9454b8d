import { EVIDENCE_ARTIFACTS, type AccountId, type ArtefactId, type EvidenceArtifact, type SessionId } from '@idv/contracts';
import type { Pool } from '@idv/kit';
import type { ArtefactStore } from '../domain/ports';
import {
  isEvidenceArtifact,
  type CaptureImage,
  type CaptureSummary,
  type CapturedFlow,
  type EvidenceDownloadRow,
  type SessionCapturesPort,
} from '../domain/session-captures';

/**
 * A session's captures for its account's dashboard, over the artefact table and the download log. Every
 * query starts from the account's flow (`flows.account_id`): an artefact or a download of another
 * account's session is never read. A flow whose data retention removed serves no image, whatever is left.
 * The bytes are opened by the artefact store (the same sealing as the evidence links').
 */
export class PgSessionCaptures implements SessionCapturesPort {
  constructor(
    private readonly pool: Pool,
    private readonly artefacts: Pick<ArtefactStore, 'get'>,
  ) {}

  async flow(accountId: AccountId, sessionId: SessionId): Promise<CapturedFlow | null> {
    const { rows } = await this.pool.query<{ data_removed_at: Date | null }>(
      'SELECT data_removed_at FROM flows WHERE session_id = $1 AND account_id = $2',
      [sessionId, accountId],
    );
    return rows[0] ? { dataRemovedAt: rows[0].data_removed_at } : null;
  }

  async list(accountId: AccountId, sessionId: SessionId): Promise<CaptureSummary[]> {
    // One row per session and kind (a new capture replaces the older one), so every row is the latest.
    const { rows } = await this.pool.query<{ kind: EvidenceArtifact; content_type: string; created_at: Date }>(
      `SELECT a.kind, a.content_type, a.created_at FROM artefacts a JOIN flows f ON f.session_id = a.session_id
        WHERE a.session_id = $1 AND f.account_id = $2 AND f.data_removed_at IS NULL AND a.kind = ANY ($3::text[])`,
      [sessionId, accountId, EVIDENCE_ARTIFACTS],
    );
    return rows.map((row) => ({ artifact: row.kind, contentType: row.content_type, capturedAt: row.created_at }));
  }

  async image(accountId: AccountId, sessionId: SessionId, artifact: EvidenceArtifact): Promise<CaptureImage | null> {
    const { rows } = await this.pool.query<{ id: ArtefactId }>(
      `SELECT a.id FROM artefacts a JOIN flows f ON f.session_id = a.session_id
        WHERE a.session_id = $1 AND f.account_id = $2 AND f.data_removed_at IS NULL AND a.kind = $3`,
      [sessionId, accountId, artifact],
    );
    if (!rows[0]) return null;
    // Deleted meanwhile (retention, or replaced by a newer capture): nothing to serve.
    const stored = await this.artefacts.get(rows[0].id);
    return stored ? { contentType: stored.contentType, bytes: stored.bytes } : null;
  }

  async downloads(accountId: AccountId, sessionId: SessionId, limit: number): Promise<EvidenceDownloadRow[]> {
    const { rows } = await this.pool.query<{
      downloaded_at: Date;
      kind: string;
      outcome: EvidenceDownloadRow['outcome'];
      client_address: string;
    }>(
      // The session's index (session_id, downloaded_at), read backwards; the flow says whose session it is.
      `SELECT d.downloaded_at, d.kind, d.outcome, d.client_address FROM evidence_downloads d
        WHERE d.session_id = $1 AND EXISTS (SELECT 1 FROM flows f WHERE f.session_id = $1 AND f.account_id = $2)
        ORDER BY d.downloaded_at DESC, d.id DESC LIMIT $3`,
      [sessionId, accountId, limit],
    );
    return rows.flatMap((row) =>
      isEvidenceArtifact(row.kind)
        ? [{ at: row.downloaded_at, artifact: row.kind, outcome: row.outcome, clientAddress: row.client_address }]
        : [],
    );
  }
}
