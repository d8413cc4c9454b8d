import path from 'node:path';
import { idPattern, newId, type SessionId, type SessionResult } from '@idv/contracts';
import { createLogger, createMetrics, createPool, cursorCodec, type Logger } from '@idv/kit';
import { privateServiceDatabase } from '@idv/testkit';
import type pg from 'pg';
import { findSession } from '../src/adapters/sessions.repository';
import { toPublicSession } from '../src/domain/session';
import { SessionsService } from '../src/use-cases/sessions.service';
import { TimerSweeper } from '../src/jobs/timer-sweeper';

/**
 * Retention of `result.document` against a real PostgreSQL database of its own (migrated by the
 * service's migration runner), so that sweeping "30 days later" touches no other test's sessions and
 * no running service sweeps these. Sessions complete in 2001; the sweep runs with a `now` 31 days on.
 */
const DAY = 24 * 3600_000;
const T0 = new Date('2001-03-01T12:00:00.000Z');
const MONTH_LATER = new Date(T0.getTime() + 31 * DAY);
const BASES = { publicBaseUrl: 'https://api.idv.test', flowBaseUrl: 'https://verify.idv.test' };
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

let database: Awaited<ReturnType<typeof privateServiceDatabase>>;
let url: string;
let pool: pg.Pool;
let projectId: string;
const logLines: string[] = [];
let logger: Logger;

beforeAll(async () => {
  database = await privateServiceDatabase({
    label: 'doc_retention',
    schema: 'sessions',
    migrationsDir: path.join(__dirname, '..', 'migrations'),
  });
  url = database.url;
  pool = createPool({ url, schema: 'sessions', max: 6 });
  logger = createLogger({ service: 'retention-test', destination: { write: (line: string) => logLines.push(line) } });
  projectId = newId('project');
  await pool.query(`INSERT INTO projects (id, account_id, name, last_version, live_version) VALUES ($1, $2, 'p', 1, 1)`, [
    projectId,
    newId('account'),
  ]);
  const config = { steps: [{ id: 'doc', type: 'document_ar' }], options: { documentData: true } };
  await pool.query(`INSERT INTO config_versions (project_id, version, mode, config) VALUES ($1, 1, 'live', $2)`, [
    projectId,
    JSON.stringify(config),
  ]);
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** An approved live session that completed at `completedAt`, with the document the flow read. */
async function completedSession(completedAt: Date, withDocument = true): Promise<SessionId> {
  const id = newId('session');
  const result: SessionResult = {
    outcome: 'approved',
    reason_codes: [],
    steps: [
      { id: 'consent', type: 'consent', verdict: 'approved' },
      { id: 'doc', type: 'document_ar', verdict: 'approved' },
    ],
    ...(withDocument ? { document: DOCUMENT } : {}),
  };
  await pool.query(
    `INSERT INTO sessions (id, account_id, mode, project_id, config_version, status, link_token, api_key_id, expires_at,
                           redeemed_at, result, completed_at, created_at)
     SELECT $1, account_id, 'live', id, 1, 'approved', $2, 'key_x', $3, $3, $4, $3, $3 FROM projects WHERE id = $5`,
    [id, newId('linkToken'), completedAt, JSON.stringify(result), projectId],
  );
  return id;
}

function sweeper(on: pg.Pool = pool) {
  const metrics = createMetrics('retention-test');
  const service = new SessionsService({
    pool: on,
    metrics,
    timeScale: 1,
    bases: BASES,
    cursors: cursorCodec({ secret: 'retention-test', purpose: 'verification-sessions', idPattern: idPattern('session') }),
  });
  return new TimerSweeper({ pool: on, service, logger, metrics, timeScale: 1, documentRetentionMs: 30 * DAY });
}

const publicView = async (id: SessionId) => toPublicSession((await findSession(pool, id))!, BASES, MONTH_LATER);

describe('retention of result.document', () => {
  test('when a session completed before the retention period, then GET says its document was removed, and the rest stays', async () => {
    const due = await completedSession(T0);
    const notDue = await completedSession(new Date(T0.getTime() + 20 * DAY));
    const before = await publicView(due);
    logLines.length = 0;

    const removed = await sweeper().removeDocuments(MONTH_LATER);

    expect(removed).toBe(1);
    const after = await publicView(due);
    expect(after.result).not.toHaveProperty('document');
    expect(after.result!.document_removed_at).toBe(MONTH_LATER.toISOString());
    // Nothing else of the session changes: status, verdict, steps, times.
    const { document: _read, ...kept } = before.result!;
    expect(after).toEqual({ ...before, result: { ...kept, document_removed_at: MONTH_LATER.toISOString() } });
    expect((await publicView(notDue)).result!.document).toEqual(DOCUMENT);
    // The log line counts; it names no session and carries nothing that was read.
    const lines = logLines.filter((line) => line.includes('retention period removed'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ job: 'session-retention', removed: { session_document: 1 } });
    for (const value of [due, DOCUMENT.number, DOCUMENT.surname]) expect(lines[0]).not.toContain(value);

    expect(await sweeper().removeDocuments(MONTH_LATER)).toBe(0);
  });

  test('when a session never carried a document, then retention adds no removal marker', async () => {
    const id = await completedSession(T0, false);

    await sweeper().removeDocuments(MONTH_LATER);

    expect((await publicView(id)).result).not.toHaveProperty('document_removed_at');
  });

  test('when two replicas sweep at the same time, then each due document is removed exactly once', async () => {
    const at = new Date(T0.getTime() - 10 * DAY);
    const ids = await Promise.all(Array.from({ length: 450 }, () => completedSession(at)));
    const second = createPool({ url, schema: 'sessions', max: 3 });
    try {
      const [a, b] = await Promise.all([sweeper().removeDocuments(MONTH_LATER), sweeper(second).removeDocuments(MONTH_LATER)]);

      expect(a + b).toBe(450);
      const { rows } = await pool.query<{ result: SessionResult }>('SELECT result FROM sessions WHERE id = ANY ($1)', [ids]);
      for (const row of rows) {
        expect(row.result).not.toHaveProperty('document');
        expect(row.result.document_removed_at).toBe(MONTH_LATER.toISOString());
      }
    } finally {
      await second.end();
    }
  });
});
