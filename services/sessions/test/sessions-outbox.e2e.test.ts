import pg from 'pg';
import { TcpProxy, api, buildTenant, type Stack } from '@idv/testkit';
import { EventTap, createSession, startPrivateStack, until } from './helpers';

/**
 * The broker goes away for the sessions service only: its AMQP_URL points at a TCP proxy this test
 * cuts and reopens, while the machine's RabbitMQ keeps serving everybody else (and our event tap).
 */
let stack: Stack;
let restoreEnv: () => void;
let tap: EventTap;
let db: pg.Pool;
let outage: TcpProxy;

beforeAll(async () => {
  const proxied = await TcpProxy.inFrontOf(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', 5672);
  outage = proxied.proxy;
  stack = await startPrivateStack({
    database: 'idv_test_sessions_outbox',
    serviceEnv: { sessions: { AMQP_URL: proxied.url } },
  });
  restoreEnv = stack.exportEnv();
  tap = await EventTap.open(stack.env.BROKER_NAMESPACE, stack.env.AMQP_URL);
  db = new pg.Pool({ connectionString: stack.env.DATABASE_URL!, max: 2 });
}, 60_000);

afterAll(async () => {
  restoreEnv?.();
  await tap?.close();
  await db?.end();
  await stack?.stop();
  await outage?.close();
});

const readiness = async () => (await fetch(`${stack.url('sessions')}/readyz`)).status;

test('when the broker is unreachable, then transitions still commit and their events are published once it returns, none lost or duplicated', async () => {
  const { project, testKey } = await buildTenant();
  const created = await Promise.all(Array.from({ length: 11 }, () => createSession(testKey, project.id)));
  expect(created.map((r) => r.status)).toEqual(Array.from({ length: 11 }, () => 201));
  const sessions = created.map((r) => r.body);
  const [probe, ...rest] = sessions;

  // Sanity: events flow through the proxy.
  await api('POST', `/v1/verification-sessions/${probe!.id}/cancel`, { key: testKey });
  await tap.waitFor(probe!.id, 1);

  await outage.cut();
  await until(readiness, (status) => status === 503);
  for (const s of rest) {
    const res = await api('POST', `/v1/verification-sessions/${s.id}/cancel`, { key: testKey });
    expect(res.status).toBe(200);
  }
  const ids = rest.map((s) => s.id);
  const pendingRows = await db.query(
    "SELECT count(*)::int AS n FROM sessions.outbox WHERE published_at IS NULL AND payload->'data'->'session'->>'id' = ANY($1)",
    [ids],
  );
  expect(pendingRows.rows[0].n).toBe(10);
  expect(rest.some((s) => tap.of(s.id).length > 0)).toBe(false);

  await outage.restore();
  for (const id of ids) {
    const events = await tap.waitFor(id, 1, 30_000);
    expect(events[0]!.type).toBe('verification_session.canceled');
  }
  // The relay marks rows published right after the broker's confirm (the tap may see them first).
  const counts = await until(
    async () =>
      (
        await db.query(
          `SELECT count(*)::int AS total, count(DISTINCT event_id)::int AS distinct_ids, count(published_at)::int AS published
             FROM sessions.outbox WHERE payload->'data'->'session'->>'id' = ANY($1)`,
          [ids],
        )
      ).rows[0],
    (row) => row.published === 10,
  );
  expect(counts).toEqual({ total: 10, distinct_ids: 10, published: 10 });
  expect(await readiness()).toBe(200);
});
