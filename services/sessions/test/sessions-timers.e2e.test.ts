import pg from 'pg';
import { api, buildTenant, metricValue, stopProcess, type RunningService, type Stack } from '@idv/testkit';
import { EventTap, createSession, internal, startPrivateStack, tokenOf, until } from './helpers';

/**
 * Timers on a private stack with TIME_SCALE 0.0005: a 1-hour link expires after 1.8 s and a started
 * flow is abandoned after 0.9 s of inactivity.
 */
const TIME_SCALE = 0.0005;
const ABANDON_MS = 30 * 60_000 * TIME_SCALE;
let stack: Stack;
let restoreEnv: () => void;
let tap: EventTap;
let db: pg.Pool;

beforeAll(async () => {
  stack = await startPrivateStack({ database: 'idv_test_sessions_timers', env: { TIME_SCALE: String(TIME_SCALE) } });
  restoreEnv = stack.exportEnv();
  tap = await EventTap.open(stack.env.BROKER_NAMESPACE, stack.env.AMQP_URL);
  db = new pg.Pool({ connectionString: stack.env.DATABASE_URL!, max: 2 });
}, 60_000);

afterAll(async () => {
  restoreEnv?.();
  await tap?.close();
  await db?.end();
  await stack?.stop();
});

const getSession = (key: string, id: string) => api('GET', `/v1/verification-sessions/${id}`, { key });

test('when a link is never redeemed before expires_at, then the session expires once with outcome expired and the link is gone', async () => {
  const { project, testKey } = await buildTenant();
  const session = (await createSession(testKey, project.id, { expires_in_hours: 1 })).body;
  const expired = await until(
    () => getSession(testKey, session.id),
    (r) => r.body.status === 'expired',
  );
  expect(expired.body.result).toEqual({
    outcome: 'expired',
    reason_codes: [],
    steps: [
      { id: 'consent', type: 'consent', verdict: 'not_reached' },
      { id: 'extra', type: 'form', verdict: 'not_reached' },
    ],
  });
  expect(Date.parse(expired.body.completed_at)).toBeGreaterThanOrEqual(Date.parse(session.expires_at));
  expect(expired.body.url).toBeUndefined();
  const [event] = await tap.waitFor(session.id, 1);
  expect(event!.type).toBe('verification_session.expired');
  expect(event!.data.session.result.outcome).toBe('expired');
  const redeem = await internal('POST', `/internal/links/${tokenOf(session.url)}/redeem`);
  expect(redeem.status).toBe(410);
  expect(redeem.body.code).toBe('link_expired');
  expect((await api('GET', new URL(session.qr.png).pathname)).status).toBe(410);
});

test('when a started flow stays idle past the abandonment period, then abandoned with the expired event', async () => {
  const { project, testKey } = await buildTenant();
  const session = (await createSession(testKey, project.id)).body;
  expect((await internal('POST', `/internal/links/${tokenOf(session.url)}/redeem`)).status).toBe(200);
  const abandoned = await until(
    () => getSession(testKey, session.id),
    (r) => r.body.status === 'abandoned',
  );
  expect(abandoned.body.result.outcome).toBe('abandoned');
  expect(abandoned.body.completed_at).toBeDefined();
  const events = await tap.waitFor(session.id, 1);
  expect(events.map((e) => e.type)).toEqual(['verification_session.expired']);
  expect(events[0]!.data.session.result.outcome).toBe('abandoned');
});

test('when the flow-runner keeps reporting activity, then the session is not abandoned until activity stops', async () => {
  const { project, testKey } = await buildTenant();
  const session = (await createSession(testKey, project.id)).body;
  await internal('POST', `/internal/links/${tokenOf(session.url)}/redeem`);
  const heartbeatUntil = Date.now() + ABANDON_MS * 3;
  while (Date.now() < heartbeatUntil) {
    const report = await internal('POST', '/internal/sessions/activity', { session_ids: [session.id] });
    expect(report.body.sessions).toEqual({ [session.id]: 'active' });
    await new Promise((r) => setTimeout(r, ABANDON_MS / 5)); // the heartbeat period itself, not a wait for a condition
  }
  expect((await getSession(testKey, session.id)).body.status).toBe('in_progress');
  await until(
    () => getSession(testKey, session.id),
    (r) => r.body.status === 'abandoned',
  );
});

test('when the flow-runner holds a session for a background check, then neither idleness nor activity abandons it before the hold ends, and a release restarts the idle period', async () => {
  const { project, testKey } = await buildTenant();
  const session = (await createSession(testKey, project.id)).body;
  await internal('POST', `/internal/links/${tokenOf(session.url)}/redeem`);
  const holdUntil = new Date(Date.now() + ABANDON_MS * 6);
  const held = await internal('POST', `/internal/sessions/${session.id}/hold`, { until: holdUntil.toISOString() });
  expect(held.status).toBe(200);
  expect(held.body).toEqual({ state: 'active' });

  // Activity during the hold (a stale page posting) must not bring the deadline closer.
  expect((await internal('POST', '/internal/sessions/activity', { session_ids: [session.id] })).status).toBe(200);
  await new Promise((r) => setTimeout(r, ABANDON_MS * 2.5)); // past the idle period: the hold is what is being tested
  expect((await getSession(testKey, session.id)).body.status).toBe('in_progress');

  const released = await internal('POST', `/internal/sessions/${session.id}/hold`, { until: null });
  expect(released.body).toEqual({ state: 'active' });
  const abandoned = await until(
    () => getSession(testKey, session.id),
    (r) => r.body.status === 'abandoned',
  );
  expect(abandoned.body.result.outcome).toBe('abandoned');
  // Abandoned by the idle period the release started, not by the end of the hold.
  expect(Date.now()).toBeLessThan(holdUntil.getTime());

  const late = await internal('POST', `/internal/sessions/${session.id}/hold`, { until: holdUntil.toISOString() });
  expect(late.body).toEqual({ state: 'terminal' });
  const unknown = await internal('POST', `/internal/sessions/vs_01JZZZZZZZZZZZZZZZZZZZZZZZ/hold`, { until: null });
  expect(unknown.status).toBe(404);
  const malformed = await internal('POST', `/internal/sessions/${session.id}/hold`, { until: 'tomorrow' });
  expect(malformed.status).toBe(422);
});

const firedCount = (url: string) => metricValue(url, 'session_timers_fired_total', { kind: 'expiry' });

test('when three replicas sweep, then each timer fires exactly once', async () => {
  const replicas: RunningService[] = [await stack.startReplica('sessions'), await stack.startReplica('sessions')];
  try {
    const urls = [stack.url('sessions'), ...replicas.map((r) => r.url)];
    const before = (await Promise.all(urls.map(firedCount))).reduce((a, b) => a + b, 0);
    const { project, testKey } = await buildTenant();
    const created = await Promise.all(
      Array.from({ length: 30 }, () => createSession(testKey, project.id, { expires_in_hours: 1 })),
    );
    expect(created.every((r) => r.status === 201)).toBe(true);
    const ids = created.map((r) => r.body.id as string);
    await until(
      async () =>
        (await db.query("SELECT count(*)::int AS n FROM sessions.sessions WHERE id = ANY($1) AND status = 'expired'", [ids]))
          .rows[0].n,
      (n) => n === 30,
    );
    const after = (await Promise.all(urls.map(firedCount))).reduce((a, b) => a + b, 0);
    expect(after - before).toBe(30);
    const { rows } = await db.query(
      "SELECT payload->'data'->'session'->>'id' AS id, count(*)::int AS n FROM sessions.outbox WHERE routing_key = 'verification_session.expired' AND payload->'data'->'session'->>'id' = ANY($1) GROUP BY 1",
      [ids],
    );
    expect(rows).toHaveLength(30);
    expect(rows.every((r) => r.n === 1)).toBe(true);
  } finally {
    await Promise.all(replicas.map((r) => stopProcess(r.process, 'SIGTERM')));
  }
});

test('when the service is down while deadlines pass, then the timers fire after it restarts', async () => {
  const { project, testKey } = await buildTenant();
  const pendingOne = (await createSession(testKey, project.id, { expires_in_hours: 2 })).body;
  const started = (await createSession(testKey, project.id, { expires_in_hours: 2 })).body;
  await internal('POST', `/internal/links/${tokenOf(started.url)}/redeem`);
  await stack.kill('sessions');
  try {
    await until(
      async () =>
        (await db.query('SELECT bool_and(now() > expires_at) AS due FROM sessions.sessions WHERE id = $1', [pendingOne.id]))
          .rows[0].due,
      (due) => due === true,
    );
    const { rows } = await db.query('SELECT id, status FROM sessions.sessions WHERE id = ANY($1) ORDER BY id', [
      [pendingOne.id, started.id],
    ]);
    expect(rows.map((r) => r.status).sort()).toEqual(['in_progress', 'pending']);
  } finally {
    await stack.startService('sessions');
  }
  await until(
    () => getSession(testKey, pendingOne.id),
    (r) => r.body.status === 'expired',
  );
  await until(
    () => getSession(testKey, started.id),
    (r) => r.body.status === 'abandoned',
  );
  expect(await tap.waitFor(pendingOne.id, 1)).toHaveLength(1);
  expect(await tap.waitFor(started.id, 1)).toHaveLength(1);
});
