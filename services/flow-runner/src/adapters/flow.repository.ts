import {
  DOMAIN_EVENTS,
  type CaptureStoredData,
  type DomainEvent,
  type FaceFramesStoredData,
  type AccountId,
  type FlowConfig,
  type Mode,
  type SessionId,
} from '@idv/contracts';
import { enqueueEvents, withTransaction, type Pool, type Queryable } from '@idv/kit';
import type { FlowState } from '../domain/engine';
import type { ArtefactStore, FlowRecord, FlowStatus, FlowStore, RegistryCheckChange, StagedCapture } from '../domain/ports';
import type { Locale } from '../domain/i18n';
import { Batcher, ItemFailure } from './batcher';

interface FlowRow {
  session_id: SessionId;
  account_id: AccountId;
  mode: Mode;
  is_try: boolean;
  token_hash: string;
  binding_hash: string;
  csrf_token: string;
  config: FlowConfig;
  /** As text: parsed once per caller, so two callers of one coalesced read never share a state to mutate. */
  state: string;
  status: FlowStatus;
  locale: Locale;
  version: number;
}

const COLUMNS =
  'session_id, account_id, mode, is_try, token_hash, binding_hash, csrf_token, config, state::text AS state, status, locale, version';

/**
 * Reads by session id and versioned writes of concurrent requests: one query of each kind on its way
 * at a time, the others wait for it and go together (see `Batcher`).
 */
const IN_FLIGHT = 1;
const BATCH_MAX = 200;

interface FlowWrite {
  sessionId: SessionId;
  version: number;
  state: string;
  status: FlowStatus;
}

const toRecord = (row: FlowRow): FlowRecord => ({
  sessionId: row.session_id,
  accountId: row.account_id,
  mode: row.mode,
  isTry: row.is_try,
  tokenHash: row.token_hash,
  bindingHash: row.binding_hash,
  csrfToken: row.csrf_token,
  config: row.config,
  state: JSON.parse(row.state) as FlowState,
  status: row.status,
  locale: row.locale,
  version: row.version,
});

/**
 * A registry check scheduled or decided with the flow change that did it (see
 * `registry-checks.repository.ts` for the runner's side). Scheduling over an older row of the step
 * starts it afresh: the flow's versioned write in the same transaction says this is the current one.
 */
async function changeRegistryCheck(tx: Queryable, sessionId: SessionId, change: RegistryCheckChange): Promise<void> {
  if (change.kind === 'schedule') {
    await tx.query(
      `INSERT INTO registry_checks (session_id, step_id, id, status, attempts, next_attempt_at, give_up_at)
       VALUES ($1, $2, $3, 'pending', 0, now(), $4)
       ON CONFLICT (session_id, step_id) DO UPDATE
         SET id = EXCLUDED.id, status = 'pending', attempts = 0, next_attempt_at = now(),
             give_up_at = EXCLUDED.give_up_at, last_outcome = NULL, updated_at = now()`,
      [sessionId, change.stepId, change.checkId, change.giveUpAt],
    );
    return;
  }
  // Decided: what is left (the verdict's delivery, or the release of the hold) is due at once.
  await tx.query(
    `UPDATE registry_checks SET status = 'decided', attempts = $3, last_outcome = $4, next_attempt_at = now(), updated_at = now()
      WHERE session_id = $1 AND step_id = $2`,
    [sessionId, change.stepId, change.attempts, change.outcome],
  );
}

/** The flow schema's repository: one row per flow, its progress (with only hashes of codes) as JSON. */
export class PgFlowStore implements FlowStore {
  private readonly reads: Batcher<SessionId, FlowRow | null>;
  private readonly writes: Batcher<FlowWrite, boolean>;

  constructor(
    private readonly pool: Pool,
    private readonly artefacts?: ArtefactStore,
  ) {
    const batching = { maxBatch: BATCH_MAX, maxInFlight: IN_FLIGHT };
    this.reads = new Batcher((ids) => this.readMany(ids), { ...batching, keyOf: (id) => id, sameKey: 'share' });
    this.writes = new Batcher((writes) => this.writeMany(writes), {
      ...batching,
      keyOf: (write) => write.sessionId,
      sameKey: 'next-batch',
    });
  }

  private async readMany(sessionIds: SessionId[]): Promise<(FlowRow | null)[]> {
    const { rows } = await this.pool.query<FlowRow>(`SELECT ${COLUMNS} FROM flows WHERE session_id = ANY($1)`, [sessionIds]);
    const found = new Map(rows.map((row) => [row.session_id, row]));
    return sessionIds.map((id) => found.get(id) ?? null);
  }

  async findByTokenHash(tokenHash: string): Promise<FlowRecord | null> {
    const { rows } = await this.pool.query<FlowRow>(`SELECT ${COLUMNS} FROM flows WHERE token_hash = $1`, [tokenHash]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** Every page and submission reads its flow first: under load, many of these reads are one query. */
  async find(sessionId: SessionId): Promise<FlowRecord | null> {
    const row = await this.reads.submit(sessionId);
    return row ? toRecord(row) : null;
  }

  async insert(record: FlowRecord): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO flows (session_id, account_id, mode, token_hash, binding_hash, csrf_token, config, state, status, locale,
                          version, is_try)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
      [
        record.sessionId,
        record.accountId,
        record.mode,
        record.tokenHash,
        record.bindingHash,
        record.csrfToken,
        JSON.stringify(record.config),
        JSON.stringify(record.state),
        record.status,
        record.locale,
        record.version,
        record.isTry,
      ],
    );
    return rowCount === 1;
  }

  /** Versioned writes of concurrent submissions go out together too (never two of one flow at once). */
  async update(record: FlowRecord, captures: readonly StagedCapture[] = [], registry?: RegistryCheckChange): Promise<boolean> {
    if (captures.length > 0 || registry) return this.updateWithCaptures(record, captures, registry);
    const took = await this.writes.submit({
      sessionId: record.sessionId,
      version: record.version,
      state: JSON.stringify(record.state),
      status: record.status,
    });
    if (took) record.version += 1;
    return took;
  }

  /** A hand-over: the new binding, its CSRF token and the state (the spent token) in one versioned write. */
  async rebind(record: FlowRecord): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE flows SET binding_hash = $3, csrf_token = $4, state = $5::jsonb, version = version + 1, updated_at = now()
        WHERE session_id = $1 AND version = $2`,
      [record.sessionId, record.version, record.bindingHash, record.csrfToken, JSON.stringify(record.state)],
    );
    if (rowCount === 1) record.version += 1;
    return rowCount === 1;
  }

  /**
   * A submission that sends photos: the flow's change, the encrypted captures and their reading jobs
   * (outbox events, relayed to the durable work queue) commit together or not at all.
   */
  private async updateWithCaptures(
    record: FlowRecord,
    captures: readonly StagedCapture[],
    registry?: RegistryCheckChange,
  ): Promise<boolean> {
    const artefacts = this.artefacts;
    if (!artefacts && captures.length > 0) throw new Error('this flow store was built without an artefact store');
    const took = await withTransaction(this.pool, async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE flows SET state = $3::jsonb, status = $4, version = version + 1, updated_at = now()
          WHERE session_id = $1 AND version = $2`,
        [record.sessionId, record.version, JSON.stringify(record.state), record.status],
      );
      if (rowCount !== 1) return false;
      const jobs: DomainEvent<CaptureStoredData | FaceFramesStoredData>[] = [];
      if (registry) await changeRegistryCheck(tx, record.sessionId, registry);
      for (const capture of captures) {
        const occurredAt = new Date().toISOString();
        if (capture.kind === 'face_frames') {
          await artefacts!.put(tx, {
            id: capture.artefactId,
            sessionId: capture.sessionId,
            kind: capture.kind,
            bytes: capture.bytes,
            contentType: capture.contentType,
          });
          jobs.push({
            id: `evt_${capture.artefactId}`,
            type: DOMAIN_EVENTS.faceFramesStored,
            occurred_at: occurredAt,
            data: { session_id: capture.sessionId, step_id: capture.stepId, artefact_id: capture.artefactId },
          });
          continue;
        }
        await artefacts!.put(tx, {
          id: capture.artefactId,
          sessionId: capture.sessionId,
          kind: capture.kind,
          bytes: capture.jpeg,
          contentType: 'image/jpeg',
        });
        jobs.push({
          id: `evt_${capture.artefactId}`,
          type: DOMAIN_EVENTS.captureStored,
          occurred_at: occurredAt,
          data: {
            session_id: capture.sessionId,
            step_id: capture.stepId,
            artefact_id: capture.artefactId,
            kind: capture.kind,
            doc_type: capture.document.type,
            accepted_types: capture.document.acceptedTypes,
          },
        });
      }
      await enqueueEvents(tx, jobs);
      return true;
    });
    if (took) record.version += 1;
    return took;
  }

  /**
   * One statement for the batch. When PostgreSQL refuses it (a value it cannot store, which input
   * checks should already have stopped), each write is retried alone: one bad row fails only its own
   * submission, never the other people's writes that happened to share its batch.
   */
  private async writeMany(writes: FlowWrite[]): Promise<(boolean | ItemFailure)[]> {
    try {
      return await this.writeTogether(writes);
    } catch (error) {
      if (writes.length === 1) return [new ItemFailure(error)];
      return Promise.all(
        writes.map((write) =>
          this.writeTogether([write]).then(
            ([took]) => took ?? false,
            (alone: unknown) => new ItemFailure(alone),
          ),
        ),
      );
    }
  }

  private async writeTogether(writes: FlowWrite[]): Promise<boolean[]> {
    const { rows } = await this.pool.query<{ session_id: SessionId }>(
      `UPDATE flows f
          SET state = w.state::jsonb, status = w.status, version = f.version + 1,
              updated_at = now(),
              resolved_at = CASE WHEN w.status <> 'active' THEN COALESCE(f.resolved_at, now()) END
         FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS w(session_id, version, state, status)
        WHERE f.session_id = w.session_id AND f.version = w.version
        RETURNING f.session_id`,
      [writes.map((w) => w.sessionId), writes.map((w) => w.version), writes.map((w) => w.state), writes.map((w) => w.status)],
    );
    const took = new Set(rows.map((row) => row.session_id));
    return writes.map((w) => took.has(w.sessionId));
  }
}
