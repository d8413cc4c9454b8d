import { newArtefactId, type ArtefactId } from '@idv/contracts';
import { createLogger, createMetrics, createPool, type Logger } from '@idv/kit';
import type pg from 'pg';
import type { PgArtefactStore } from '../src/adapters/artefact.store';
import { PgEvidenceRepository } from '../src/adapters/evidence.repository';
import type { PgFlowStore } from '../src/adapters/flow.repository';
import { RetentionRepository } from '../src/adapters/retention.repository';
import { RetentionSweeper } from '../src/jobs/retention';
import { ARTEFACT_KINDS } from '../src/domain/artefacts';
import { initialState, type FlowState } from '../src/domain/engine';
import type { FlowRecord } from '../src/domain/ports';
import { buildFlowRecord } from './flow-records';
import { privateFlowStores } from './private-database';

/**
 * The retention sweeper against a real PostgreSQL database of its own (migrated here like the service
 * does), so that sweeping "30 days later" touches no other test's rows and no running service sweeps
 * these ones. Rows are dated in 2001; a sweep is run with a `now` 31 days later.
 */
const DAY = 24 * 3600_000;
const T0 = new Date('2001-03-01T12:00:00.000Z');
const RETENTION_MS = 30 * DAY;
const AUDIT_RETENTION_MS = 365 * DAY;
const MONTH_LATER = new Date(T0.getTime() + 31 * DAY);

const stores = privateFlowStores('retention');
let url: string;
let pool: pg.Pool;
let artefacts: PgArtefactStore;
let flows: PgFlowStore;
let image: Buffer;
const logLines: string[] = [];
let logger: Logger;

beforeAll(() => {
  ({ url, pool, artefacts, flows, image } = stores);
  logger = createLogger({ service: 'retention-test', destination: { write: (line: string) => logLines.push(line) } });
});

const DOCUMENT = {
  doc_type: 'dni',
  series: 'A',
  number: '30123456',
  surname: 'NÚÑEZ',
  given_names: 'MARÍA JOSÉ',
  sex: 'F',
  birth_date: '1983-05-02',
  cuil: '27301234564',
  expiry_date: '2031-05-02',
};

const CAPTURED = newArtefactId();

/** A flow that passed a DNI with a registry check: every place the read document lives in its state. */
function readState(): FlowState {
  const state = initialState();
  state.document = DOCUMENT;
  state.steps = {
    consent: { status: 'passed' },
    doc: {
      status: 'passed',
      document: {
        type: 'dni',
        captures: {
          front: {
            artefactId: CAPTURED,
            status: 'accepted',
            attempts: 2,
            // What the front's first photo settled, pooled with the second's.
            settledPrint: {
              card: 'c0ffee',
              layout: 'dni_2012_front',
              fields: { surname: DOCUMENT.surname, birth_date: DOCUMENT.birth_date },
              status: { surname: 'agrees', birth_date: 'agrees' },
            },
          },
        },
        checks: [{ name: 'front_vs_barcode', verdict: 'passed' }],
        registry: {
          status: 'match',
          query: {
            document_type: 'dni',
            number: DOCUMENT.number,
            sex: 'F',
            surname: DOCUMENT.surname,
            given_names: DOCUMENT.given_names,
            birth_date: DOCUMENT.birth_date,
            tramite: '00412345678',
            series: 'A',
          },
          document: DOCUMENT,
        },
      },
    },
  };
  state.reasons = [];
  return state;
}

const buildFlow = (state: FlowState = readState()): FlowRecord => buildFlowRecord({ state, mode: 'live', status: 'approved' });

/** A flow with a capture of every kind, a reading of each, a registry check and a download, all dated `at`. */
async function seedFlow(at: Date, registryStatus: 'done' | 'pending' = 'done'): Promise<FlowRecord> {
  const flow = buildFlow();
  await flows.insert(flow);
  const ids: ArtefactId[] = [];
  for (const kind of ARTEFACT_KINDS) {
    const id = newArtefactId();
    ids.push(id);
    await artefacts.put(pool, { id, sessionId: flow.sessionId, kind, bytes: image, contentType: 'image/jpeg' });
    await artefacts.saveReading(id, { fields: { number: DOCUMENT.number, surname: DOCUMENT.surname } });
  }
  await pool.query(
    `INSERT INTO registry_checks (session_id, step_id, id, status, attempts, next_attempt_at, give_up_at)
     VALUES ($1, 'doc', $2, $3, 1, $4, $4)`,
    [flow.sessionId, `rck_${flow.sessionId}`, registryStatus, at],
  );
  await new PgEvidenceRepository(pool, artefacts).record({
    sessionId: flow.sessionId,
    artefactId: ids[0]!,
    kind: 'front',
    clientAddress: '198.51.100.7',
    userAgent: 'backoffice/1.0',
    outcome: 'served',
    at,
  });
  await pool.query('UPDATE flows SET created_at = $2, updated_at = $2 WHERE session_id = $1', [flow.sessionId, at]);
  await pool.query('UPDATE artefacts SET created_at = $2 WHERE session_id = $1', [flow.sessionId, at]);
  return flow;
}

function sweeper(retention = new RetentionRepository(pool)) {
  return new RetentionSweeper(
    { artefacts, retention, logger, metrics: createMetrics('retention-test') },
    { retentionMs: RETENTION_MS, auditRetentionMs: AUDIT_RETENTION_MS, intervalMs: 60_000 },
  );
}

async function snapshot(sessionId: string) {
  const flow = await pool.query<{ state: FlowState; status: string; version: number; data_removed_at: Date | null }>(
    'SELECT state, status, version, data_removed_at FROM flows WHERE session_id = $1',
    [sessionId],
  );
  const count = async (sql: string) => Number((await pool.query<{ n: string }>(sql, [sessionId])).rows[0]!.n);
  return {
    flow: flow.rows[0]!,
    artefacts: await count('SELECT count(*) AS n FROM artefacts WHERE session_id = $1'),
    readings: await count(
      'SELECT count(*) AS n FROM artefact_readings r JOIN artefacts a ON a.id = r.artefact_id WHERE a.session_id = $1',
    ),
    registryChecks: await count('SELECT count(*) AS n FROM registry_checks WHERE session_id = $1'),
    downloads: await count('SELECT count(*) AS n FROM evidence_downloads WHERE session_id = $1'),
  };
}

describe('retention of captures and of what was read from them', () => {
  test('when a sweep runs past the retention period, then captures of every kind, their readings, the document data and the registry checks go, and the verdict stays', async () => {
    const due = await seedFlow(T0);
    const notDue = await seedFlow(new Date(T0.getTime() + 20 * DAY));
    const waiting = await seedFlow(T0, 'pending');
    logLines.length = 0;

    const result = await sweeper().sweep(MONTH_LATER);

    expect(result).toEqual({ artefact: 2 * ARTEFACT_KINDS.length, flow_data: 1, evidence_download: 0 });
    const swept = await snapshot(due.sessionId);
    expect(swept).toMatchObject({ artefacts: 0, readings: 0, registryChecks: 0, downloads: 1 });
    expect(swept.flow.data_removed_at).not.toBeNull();
    expect(swept.flow.version).toBe(1);
    expect(swept.flow.status).toBe('approved');
    const text = JSON.stringify(swept.flow.state);
    for (const value of [DOCUMENT.number, DOCUMENT.surname, DOCUMENT.cuil, DOCUMENT.birth_date, '00412345678']) {
      expect(text).not.toContain(value);
    }
    // What was decided stays: step statuses, reasons, check names and verdicts, the capture bookkeeping.
    const { registry: _gone, captures, ...progress } = readState().steps.doc!.document!;
    const { settledPrint: _pooled, ...frontBookkeeping } = captures.front!;
    expect(swept.flow.state.steps.doc).toEqual({
      status: 'passed',
      document: { ...progress, captures: { front: frontBookkeeping } },
    });
    expect(swept.flow.state.steps.consent).toEqual({ status: 'passed' });
    expect(swept.flow.state.reasons).toEqual([]);

    // Captured 20 days before the sweep: nothing of it is touched.
    const kept = await snapshot(notDue.sessionId);
    expect(kept).toMatchObject({
      artefacts: ARTEFACT_KINDS.length,
      readings: ARTEFACT_KINDS.length,
      registryChecks: 1,
      downloads: 1,
    });
    expect(kept.flow).toMatchObject({ version: 0, data_removed_at: null, state: readState() });

    // A registry check still pending needs the data it sends: the images go, the data waits for the check.
    const held = await snapshot(waiting.sessionId);
    expect(held).toMatchObject({ artefacts: 0, readings: 0, registryChecks: 1 });
    expect(held.flow.data_removed_at).toBeNull();
    expect(held.flow.state.document).toEqual(DOCUMENT);

    // One log line with counts, and no personal data or id in it.
    const lines = logLines.filter((line) => line.includes('retention period removed'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      job: 'flow-retention',
      removed: { artefact: 2 * ARTEFACT_KINDS.length, flow_data: 1, evidence_download: 0 },
    });
    for (const value of [due.sessionId, DOCUMENT.number, DOCUMENT.surname, '198.51.100.7']) expect(lines[0]).not.toContain(value);

    // A second sweep at the same instant finds nothing left to do.
    expect(await sweeper().sweep(MONTH_LATER)).toEqual({ artefact: 0, flow_data: 0, evidence_download: 0 });
  });

  test('when the audit retention is over, then download rows go, and not before', async () => {
    const flow = await seedFlow(T0);
    await sweeper().sweep(MONTH_LATER);
    expect((await snapshot(flow.sessionId)).downloads).toBe(1);

    await sweeper().sweep(new Date(T0.getTime() + AUDIT_RETENTION_MS + DAY));

    expect((await snapshot(flow.sessionId)).downloads).toBe(0);
  });

  test('when two replicas sweep at the same time, then every due row is removed exactly once between them', async () => {
    const at = new Date(T0.getTime() - 400 * DAY);
    // More than one batch (200) of captures, so the replicas take turns on several batches.
    const seeded = await Promise.all(Array.from({ length: 60 }, () => seedFlow(at)));
    const secondPool = createPool({ url, schema: 'flow', max: 3 });
    try {
      const [a, b] = await Promise.all([
        sweeper().sweep(MONTH_LATER),
        sweeper(new RetentionRepository(secondPool)).sweep(MONTH_LATER),
      ]);

      expect(a.artefact + b.artefact).toBe(60 * ARTEFACT_KINDS.length);
      expect(a.flow_data + b.flow_data).toBe(60);
      expect(a.evidence_download + b.evidence_download).toBe(60);
      const { rows } = await pool.query<{ version: number; data_removed_at: Date | null }>(
        'SELECT version, data_removed_at FROM flows WHERE session_id = ANY ($1)',
        [seeded.map((flow) => flow.sessionId)],
      );
      expect(rows).toHaveLength(60);
      for (const row of rows) expect(row).toEqual({ version: 1, data_removed_at: expect.any(Date) });
    } finally {
      await secondPool.end();
    }
  });

  test('when a submission computed before the sweep is stored after it, then it is refused and the data stays gone', async () => {
    const flow = await seedFlow(T0);
    const stale = (await flows.find(flow.sessionId))!;

    await sweeper().sweep(MONTH_LATER);
    const stored = await flows.update(stale);

    expect(stored).toBe(false);
    expect((await snapshot(flow.sessionId)).flow.state.document).toBeUndefined();
  });
});
