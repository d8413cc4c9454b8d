import type { ArtefactId, SessionId } from '@idv/contracts';
import { withTransaction, type Keyring, type Pool, type Queryable } from '@idv/kit';
import type { ArtefactKind } from '../domain/artefacts';
import type { ArtefactStore, NewArtefact, StoredArtefact } from '../domain/ports';

interface ArtefactRow {
  id: ArtefactId;
  session_id: SessionId;
  kind: ArtefactKind;
  key_id: string;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
  content_type: string;
  created_at: Date;
}

/** What a sealing is bound to: a ciphertext copied onto another row or session does not open. */
const associatedData = (id: ArtefactId, sessionId: SessionId, kind: ArtefactKind) => `artefact:${id}:${sessionId}:${kind}`;

/**
 * Artefacts in PostgreSQL (the flow schema), encrypted at rest with AES-256-GCM under the ring's active
 * key. One row per session and kind: a new capture replaces the previous one (and its reading).
 */
export class PgArtefactStore implements ArtefactStore {
  constructor(
    private readonly pool: Pool,
    private readonly keyring: Keyring,
  ) {}

  async put(db: Queryable, input: NewArtefact): Promise<void> {
    const { id } = input;
    const sealed = this.keyring.seal(input.bytes, associatedData(id, input.sessionId, input.kind));
    await db.query('DELETE FROM artefacts WHERE session_id = $1 AND kind = $2', [input.sessionId, input.kind]);
    await db.query(
      `INSERT INTO artefacts (id, session_id, kind, key_id, iv, tag, ciphertext, content_type, byte_size)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        input.sessionId,
        input.kind,
        sealed.keyId,
        sealed.iv,
        sealed.tag,
        sealed.ciphertext,
        input.contentType,
        input.bytes.length,
      ],
    );
  }

  async store(input: NewArtefact): Promise<void> {
    await withTransaction(this.pool, (tx) => this.put(tx, input));
  }

  async get(id: ArtefactId): Promise<StoredArtefact | null> {
    const { rows } = await this.pool.query<ArtefactRow>(
      'SELECT id, session_id, kind, key_id, iv, tag, ciphertext, content_type, created_at FROM artefacts WHERE id = $1',
      [id],
    );
    return rows[0] ? this.open(rows[0]) : null;
  }

  async latest(sessionId: SessionId, kind: ArtefactKind): Promise<StoredArtefact | null> {
    const { rows } = await this.pool.query<ArtefactRow>(
      `SELECT id, session_id, kind, key_id, iv, tag, ciphertext, content_type, created_at
         FROM artefacts WHERE session_id = $1 AND kind = $2`,
      [sessionId, kind],
    );
    return rows[0] ? this.open(rows[0]) : null;
  }

  async saveReading(artefactId: ArtefactId, reading: unknown): Promise<void> {
    await this.pool.query(
      `INSERT INTO artefact_readings (artefact_id, reading)
       SELECT $1, $2::jsonb WHERE EXISTS (SELECT 1 FROM artefacts WHERE id = $1)
       ON CONFLICT (artefact_id) DO NOTHING`,
      [artefactId, JSON.stringify(reading)],
    );
  }

  async reading(artefactId: ArtefactId): Promise<unknown> {
    const { rows } = await this.pool.query<{ reading: unknown }>('SELECT reading FROM artefact_readings WHERE artefact_id = $1', [
      artefactId,
    ]);
    return rows[0]?.reading ?? null;
  }

  /**
   * Deletes artefacts (and, by cascade, what was read from them) captured before `cutoff`, a batch at
   * a time; replicas sweeping together skip each other's rows.
   */
  async deleteCapturedBefore(cutoff: Date, batch: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM artefacts WHERE id IN (
         SELECT id FROM artefacts WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [cutoff, batch],
    );
    return rowCount ?? 0;
  }

  private open(row: ArtefactRow): StoredArtefact {
    const bytes = this.keyring.open(
      { keyId: row.key_id, iv: row.iv, tag: row.tag, ciphertext: row.ciphertext },
      associatedData(row.id, row.session_id, row.kind),
    );
    return {
      id: row.id,
      sessionId: row.session_id,
      kind: row.kind,
      contentType: row.content_type,
      bytes,
      createdAt: row.created_at,
    };
  }
}
