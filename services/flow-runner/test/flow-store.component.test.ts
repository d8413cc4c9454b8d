import { initialState } from '../src/domain/engine';
import { buildFlowRecord } from './flow-records';
import { stackFlowStore } from './private-database';

/** The flow store against the stack's real PostgreSQL. */
const db = stackFlowStore();

const buildFlow = () => buildFlowRecord();

describe('versioned writes that travel in one batch', () => {
  test('when one write of a batch holds a value PostgreSQL cannot store, then only that write fails and the others are stored', async () => {
    const flows = Array.from({ length: 20 }, buildFlow);
    await Promise.all(flows.map((flow) => db.store.insert(flow)));
    flows.forEach((flow, i) => {
      flow.state.formData = { occupation: i === 7 ? 'Doc\u0000ente' : `Oficio ${i}` };
    });

    const results = await Promise.allSettled(flows.map((flow) => db.store.update(flow)));

    results.forEach((result, i) => {
      if (i === 7) expect(result.status).toBe('rejected');
      else expect(result).toEqual({ status: 'fulfilled', value: true });
    });
    const { rows } = await db.pool.query<{ session_id: string; version: number }>(
      'SELECT session_id, version FROM flows WHERE session_id = ANY($1)',
      [flows.map((flow) => flow.sessionId)],
    );
    const versions = new Map(rows.map((row) => [row.session_id, row.version]));
    flows.forEach((flow, i) => expect(versions.get(flow.sessionId)).toBe(i === 7 ? 0 : 1));
  });

  test('when two writes of one flow race from the same version, then exactly one is stored', async () => {
    const flow = buildFlow();
    await db.store.insert(flow);
    const copy = { ...flow, state: initialState() };
    flow.state.formData = { a: '1' };
    copy.state.formData = { a: '2' };

    const results = await Promise.all([db.store.update(flow), db.store.update(copy)]);

    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
