import { EVIDENCE_ARTIFACTS, type ArtefactId, type SessionId } from '@idv/contracts';
import type { Pool } from '@idv/kit';
import type { ArtefactStore, DownloadRecord, EvidenceArtefact, EvidencePort } from '../domain/ports';

interface MetaRow {
  id: ArtefactId;
  session_id: SessionId;
  kind: EvidenceArtefact['kind'];
  content_type: string;
}

const toArtefact = (row: MetaRow): EvidenceArtefact => ({
  id: row.id,
  sessionId: row.session_id,
  kind: row.kind,
  contentType: row.content_type,
});

/**
 * Evidence over the artefact table: metadata only until a download is allowed (nothing is decrypted
 * for a refused link), the bytes through the artefact store, downloads in `evidence_downloads`.
 */
export class PgEvidenceRepository implements EvidencePort {
  constructor(
    private readonly pool: Pool,
    private readonly artefacts: ArtefactStore,
  ) {}

  async latestOf(sessionIds: readonly SessionId[]): Promise<EvidenceArtefact[]> {
    if (sessionIds.length === 0) return [];
    // One row per session and kind (the store replaces older captures), so every row is the latest.
    const { rows } = await this.pool.query<MetaRow>(
      `SELECT id, session_id, kind, content_type FROM artefacts
        WHERE session_id = ANY ($1::text[]) AND kind = ANY ($2::text[])`,
      [sessionIds, EVIDENCE_ARTIFACTS],
    );
    return rows.map(toArtefact);
  }

  async find(sessionId: SessionId, artefactId: ArtefactId): Promise<EvidenceArtefact | null> {
    const { rows } = await this.pool.query<MetaRow>(
      `SELECT id, session_id, kind, content_type FROM artefacts
        WHERE session_id = $1 AND id = $2 AND kind = ANY ($3::text[])`,
      [sessionId, artefactId, EVIDENCE_ARTIFACTS],
    );
    return rows[0] ? toArtefact(rows[0]) : null;
  }

  async bytes(artefactId: ArtefactId): Promise<Buffer | null> {
    return (await this.artefacts.get(artefactId))?.bytes ?? null;
  }

  async record(download: DownloadRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO evidence_downloads (session_id, kind, artefact_id, client_address, user_agent, outcome, downloaded_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        download.sessionId,
        download.kind,
        download.artefactId,
        download.clientAddress,
        download.userAgent,
        download.outcome,
        download.at,
      ],
    );
  }
}
