import { createLogger, createMetrics, createPool, DAY, type Pool } from '@idv/kit';
import { newId } from '@idv/contracts';
import { testEnv } from '@idv/testkit';
import { EventRetentionSweeper } from '../src/jobs/event-retention';

// Against the real PostgreSQL of the test stack (schema webhooks): stored events that carry a document
// lose it once past retention; younger events, and events without one, are untouched.
let pool: Pool;
beforeAll(() => {
  pool = createPool({ url: testEnv().databaseUrl, schema: 'webhooks', max: 4 });
});
afterAll(async () => {
  await pool.end();
});

const RETENTION_MS = 30 * DAY;
// Long ago, so that at this `now` only this file's events (placed around its cutoff) are past
// retention: the other tests' events in the shared database are never touched.
const NOW = new Date('2001-01-31T12:00:00.000Z');
const CUTOFF = new Date(NOW.getTime() - RETENTION_MS);

const DOCUMENT = {
  doc_type: 'dni',
  series: 'A',
  number: '26756539',
  surname: 'PEREZ',
  given_names: 'JUAN CARLOS',
  sex: 'M',
  birth_date: '1978-03-15',
  cuil: '20-26756539-3',
  expiry_date: null,
};

async function insertEvent(occurredAt: Date, result: Record<string, unknown> | null): Promise<string> {
  const id = newId('event');
  const data = { id: newId('session'), object: 'verification_session', status: 'approved', result };
  await pool.query(
    `INSERT INTO events (id, account_id, type, data, occurred_at) VALUES ($1, $2, 'verification_session.completed', $3, $4)`,
    [id, newId('account'), JSON.stringify(data), occurredAt],
  );
  return id;
}

async function resultOf(id: string): Promise<Record<string, unknown> | null> {
  const { rows } = await pool.query<{ result: Record<string, unknown> | null }>(
    `SELECT data -> 'result' AS result FROM events WHERE id = $1`,
    [id],
  );
  return rows[0]!.result;
}

const sweeper = () =>
  new EventRetentionSweeper(
    { pool, logger: createLogger({ service: 'test', level: 'silent' }), metrics: createMetrics('test') },
    { retentionMs: RETENTION_MS, intervalMs: 60_000 },
  );

describe('retention of the document data of stored events', () => {
  it('when an event is past retention, then its document goes, the rest of the result stays and the removal is dated', async () => {
    const result = { outcome: 'approved', reason_codes: [], steps: [{ id: 'doc', status: 'passed' }], document: DOCUMENT };
    const old = await insertEvent(new Date(CUTOFF.getTime() - 1000), result);
    const young = await insertEvent(new Date(CUTOFF.getTime() + 60_000), result);
    const withoutDocument = await insertEvent(new Date(CUTOFF.getTime() - 1000), {
      outcome: 'rejected',
      reason_codes: ['document_expired'],
    });
    const withoutResult = await insertEvent(new Date(CUTOFF.getTime() - 1000), null);

    expect(await sweeper().sweep(NOW)).toBeGreaterThanOrEqual(1);

    const { document: _removed, ...kept } = result;
    expect(await resultOf(old)).toEqual({ ...kept, document_removed_at: NOW.toISOString() });
    expect(await resultOf(young)).toEqual(result);
    expect(await resultOf(withoutDocument)).toEqual({ outcome: 'rejected', reason_codes: ['document_expired'] });
    expect(await resultOf(withoutResult)).toBeNull();
    // A second pass finds nothing left to do for these.
    await sweeper().sweep(NOW);
    expect(await resultOf(old)).toEqual({ ...kept, document_removed_at: NOW.toISOString() });
  });

  it('when two replicas sweep at once, then every due event loses its document once and none is missed', async () => {
    const ids = await Promise.all(
      Array.from({ length: 450 }, (_, i) =>
        insertEvent(new Date(CUTOFF.getTime() - 1000 - i), { outcome: 'approved', document: DOCUMENT }),
      ),
    );
    const counts = await Promise.all([sweeper().sweep(NOW), sweeper().sweep(NOW)]);
    expect(counts[0] + counts[1]).toBeGreaterThanOrEqual(450);
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE id = ANY($1) AND (data -> 'result') ? 'document'`,
      [ids],
    );
    expect(rows[0]!.n).toBe(0);
  });
});
