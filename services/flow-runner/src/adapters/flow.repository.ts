import {
  DOMAIN_EVENTS,
  type CaptureStoredData,
  type DomainEvent,
  type FaceFramesStoredData,
  type AccountId,
  type DeviceClass,
  type FlowConfig,
  type Mode,
  type SessionId,
} from '@idv/contracts';
import { enqueueEvents, withTransaction, type Pool, type Queryable } from '@idv/kit';
import type { FlowState } from '../domain/engine';
import type { ArtefactStore, FlowRecord, FlowStatus, FlowStore, RegistryCheckChange, StagedCapture } from '../domain/ports';
import type { Locale } from '../domain/i18n';
import { handedOverTimeline, openedTimeline, timelineOfChange, type TimelineDraft } from '../domain/timeline';
import { Batcher, ItemFailure } from './batcher';
import { appendTimeline, loggedChange } from './timeline.repository';

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
  /** The timeline's entries of this change, written with it. */
  timeline: TimelineDraft[];
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

/**
 * The flow schema's repository: one row per flow, its progress (with only hashes of codes) as JSON. Every
 * change stored writes the session's timeline entries it reports with it (`domain/timeline.ts`), read
 * from the state as this store last read or wrote it for that record and the state written.
 */
export class PgFlowStore implements FlowStore {
  private readonly reads: Batcher<SessionId, FlowRow | null>;
  private readonly writes: Batcher<FlowWrite, boolean>;
  /** Each record's state (JSON) as stored when this store handed it out or last wrote it: the change's "before". */
  private readonly storedState = new WeakMap<FlowRecord, string>();

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
    return rows[0] ? this.handOut(rows[0]) : null;
  }

  /** Every page and submission reads its flow first: under load, many of these reads are one query. */
  async find(sessionId: SessionId): Promise<FlowRecord | null> {
    const row = await this.reads.submit(sessionId);
    return row ? this.handOut(row) : null;
  }

  private handOut(row: FlowRow): FlowRecord {
    const record = toRecord(row);
    this.storedState.set(record, row.state);
    return record;
  }

  /** What a change of this record does, for the timeline (nothing for a record this store never handed out). */
  private timelineOf(record: FlowRecord, state: string, registry?: RegistryCheckChange): TimelineDraft[] {
    const before = this.storedState.get(record);
    if (before === undefined || before === state) return [];
    return timelineOfChange(record.config, JSON.parse(before) as FlowState, record.state, registry);
  }

  async insert(record: FlowRecord, opened?: { device: DeviceClass }): Promise<boolean> {
    const state = JSON.stringify(record.state);
    const timeline = opened ? openedTimeline(record.config, record.state, opened.device) : [];
    const { text, values } = loggedChange(
      `INSERT INTO flows (session_id, account_id, mode, token_hash, binding_hash, csrf_token, config, state, status, locale,
                          version, is_try)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING
       RETURNING session_id, account_id`,
      [
        record.sessionId,
        record.accountId,
        record.mode,
        record.tokenHash,
        record.bindingHash,
        record.csrfToken,
        JSON.stringify(record.config),
        state,
        record.status,
        record.locale,
        record.version,
        record.isTry,
      ],
      [{ sessionId: record.sessionId, drafts: timeline }],
    );
    const { rows } = await this.pool.query(text, values);
    if (rows.length === 1) this.storedState.set(record, state);
    return rows.length === 1;
  }

  /** Versioned writes of concurrent submissions go out together too (never two of one flow at once). */
  async update(record: FlowRecord, captures: readonly StagedCapture[] = [], registry?: RegistryCheckChange): Promise<boolean> {
    if (captures.length > 0 || registry) return this.updateWithCaptures(record, captures, registry);
    const state = JSON.stringify(record.state);
    const took = await this.writes.submit({
      sessionId: record.sessionId,
      version: record.version,
      state,
      status: record.status,
      timeline: this.timelineOf(record, state),
    });
    if (took) {
      record.version += 1;
      this.storedState.set(record, state);
    }
    return took;
  }

  /** A hand-over: the new binding, its CSRF token and the state (the spent token) in one versioned write. */
  async rebind(record: FlowRecord, device?: DeviceClass): Promise<boolean> {
    const state = JSON.stringify(record.state);
    const timeline = [...this.timelineOf(record, state), ...(device ? handedOverTimeline(device) : [])];
    const { text, values } = loggedChange(
      `UPDATE flows SET binding_hash = $3, csrf_token = $4, state = $5::jsonb, version = version + 1, updated_at = now()
        WHERE session_id = $1 AND version = $2
        RETURNING session_id, account_id`,
      [record.sessionId, record.version, record.bindingHash, record.csrfToken, state],
      [{ sessionId: record.sessionId, drafts: timeline }],
    );
    const { rows } = await this.pool.query(text, values);
    if (rows.length === 1) {
      record.version += 1;
      this.storedState.set(record, state);
    }
    return rows.length === 1;
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
    const state = JSON.stringify(record.state);
    const timeline = this.timelineOf(record, state, registry);
    const took = await withTransaction(this.pool, async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE flows SET state = $3::jsonb, status = $4, version = version + 1, updated_at = now()
          WHERE session_id = $1 AND version = $2`,
        [record.sessionId, record.version, state, record.status],
      );
      if (rowCount !== 1) return false;
      await appendTimeline(tx, record.accountId, record.sessionId, timeline);
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
    if (took) {
      record.version += 1;
      this.storedState.set(record, state);
    }
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

  /** The batch's writes and, in the same statement, the timeline entries of the writes that were stored. */
  private async writeTogether(writes: FlowWrite[]): Promise<boolean[]> {
    const { text, values } = loggedChange(
      `UPDATE flows f
          SET state = w.state::jsonb, status = w.status, version = f.version + 1,
              updated_at = now(),
              resolved_at = CASE WHEN w.status <> 'active' THEN COALESCE(f.resolved_at, now()) END
         FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS w(session_id, version, state, status)
        WHERE f.session_id = w.session_id AND f.version = w.version
        RETURNING f.session_id, f.account_id`,
      [writes.map((w) => w.sessionId), writes.map((w) => w.version), writes.map((w) => w.state), writes.map((w) => w.status)],
      writes.map((w) => ({ sessionId: w.sessionId, drafts: w.timeline })),
    );
    const { rows } = await this.pool.query<{ session_id: SessionId }>(text, values);
    const took = new Set(rows.map((row) => row.session_id));
    return writes.map((w) => took.has(w.sessionId));
  }
}
