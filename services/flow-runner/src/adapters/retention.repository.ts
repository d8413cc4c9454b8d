import type { SessionId } from '@idv/contracts';
import { withTransaction, type Pool } from '@idv/kit';
import type { FlowState } from '../domain/engine';
import { withoutDocumentData } from '../domain/retention';

/**
 * The retention sweeper's queries over the flow schema (captured images go through the artefact store).
 * Each takes one batch of due rows with `FOR UPDATE SKIP LOCKED`, so replicas sweeping at the same time
 * share the work and never touch the same row twice.
 */
export class RetentionRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Removes the document data of flows whose last change is before `cutoff`, keeping their verdict; with
   * them go their registry checks, all done. A flow whose registry check is still pending or being
   * delivered is left until it is done: its data is what the check sends. Returns how many flows.
   */
  async removeFlowDataBefore(cutoff: Date, batch: number): Promise<number> {
    return withTransaction(this.pool, async (tx) => {
      const { rows } = await tx.query<{ session_id: SessionId; state: FlowState }>(
        `SELECT session_id, state FROM flows f
          WHERE data_removed_at IS NULL AND created_at < $1 AND updated_at < $1
            AND NOT EXISTS (SELECT 1 FROM registry_checks r WHERE r.session_id = f.session_id AND r.status <> 'done')
          ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [cutoff, batch],
      );
      if (rows.length === 0) return 0;
      const ids = rows.map((row) => row.session_id);
      // The version moves on, so a submission computed on the state read before fails and reads it again.
      await tx.query(
        `UPDATE flows f SET state = v.state, version = f.version + 1, data_removed_at = now()
           FROM unnest($1::text[], $2::jsonb[]) AS v (session_id, state)
          WHERE f.session_id = v.session_id`,
        [ids, rows.map((row) => JSON.stringify(withoutDocumentData(row.state)))],
      );
      await tx.query('DELETE FROM registry_checks WHERE session_id = ANY ($1)', [ids]);
      return rows.length;
    });
  }

  /** Deletes one batch of download audit rows older than `cutoff`; returns how many. */
  async deleteDownloadsBefore(cutoff: Date, batch: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM evidence_downloads WHERE id IN (
         SELECT id FROM evidence_downloads WHERE downloaded_at < $1 ORDER BY downloaded_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [cutoff, batch],
    );
    return rowCount ?? 0;
  }
}
