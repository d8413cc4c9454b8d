import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventId } from '@idv/contracts';
import { OpsClient, createDemo } from '@idv/ops';
import pg from 'pg';
import { request } from 'undici';
import { ROOT_DIR, Receiver, SERVICE_NAMES, Stack, behaviours, waitFor } from '../src';
import { PrivatePostgres, PrivateRabbit, PrivateRedis } from './chaos/infra';
import { SteadyLoad, type Outcome } from './chaos/load';

/**
 * Chaos under steady load (docs/testing.md "Chaos"): a stack of its own on a PostgreSQL, RabbitMQ and Redis of
 * its own (loopback, temporary directory), integrators creating and cancelling live sessions through the
 * gateway, then each service killed with SIGKILL in turn and restarted, and RabbitMQ, PostgreSQL and Redis
 * crashed and restarted. At the end every session, ledger entry, event and webhook is accounted for: nothing
 * lost, sessions and debits exactly once, webhooks at least once (their duplicates counted).
 */

const CLIENTS = 4;
const CANCELED = 'verification_session.canceled';
/** Between two disturbances: the load runs a while on the recovered system before the next one. */
const SPACING_MS = 2_500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let root: string;
let postgres: PrivatePostgres | undefined;
let rabbit: PrivateRabbit | undefined;
let redis: PrivateRedis | undefined;
let stack: Stack | undefined;
let receiver: Receiver | undefined;
const savedEnv = { ...process.env };

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'idv-chaos-'));
  chmodSync(root, 0o755); // PostgreSQL runs as its own user and must reach its directory
  // Each assigned as soon as it runs, so that afterAll stops it even when another failed to start.
  const started = await Promise.allSettled([
    PrivatePostgres.start(root).then((server) => (postgres = server)),
    PrivateRabbit.start(root).then((server) => (rabbit = server)),
    PrivateRedis.start(root).then((server) => (redis = server)),
  ]);
  for (const result of started) if (result.status === 'rejected') throw result.reason;
  if (!postgres || !rabbit || !redis) throw new Error('infrastructure did not start');
  // Stack.start reads where the infrastructure is from the environment (this file's own copy of it).
  process.env.POSTGRES_ADMIN_URL = postgres.adminUrl;
  process.env.AMQP_URL = rabbit.url;
  process.env.REDIS_URL = redis.url;
  const logDir = path.join(ROOT_DIR, '.run', 'logs', 'chaos');
  mkdirSync(logDir, { recursive: true });
  stack = await Stack.start({
    database: 'idv_chaos',
    logDir,
    readyTimeoutMs: 60_000,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' },
  });
  receiver = await Receiver.start(behaviours.ok());
}, 150_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.stop().catch(() => undefined);
  await Promise.all([postgres?.stop(), rabbit?.stop(), redis?.stop()]);
  process.env = savedEnv;
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

async function ready(url: string): Promise<boolean> {
  const response = await request(`${url}/readyz`, { headersTimeout: 2_000, bodyTimeout: 2_000 });
  await response.body.dump();
  return response.statusCode === 200;
}

/** Every service of the stack answers /readyz 200 (its database, broker and Redis usable again). */
async function allReady(s: Stack): Promise<boolean> {
  const services = [...s.running.values()];
  const answers = await Promise.all(services.map((service) => ready(service.url).catch(() => false)));
  const notReady = services.filter((_service, i) => !answers[i]).map((service) => service.name);
  // Thrown, so that waitFor's timeout names them.
  if (notReady.length > 0) throw new Error(`not ready: ${notReady.join(', ')}`);
  return true;
}

interface Disturbance {
  what: string;
  at: number;
  /** Until the disturbed part was back (its restart done, or the service ready). */
  backMs: number;
  /** Until every service answered /readyz 200 again. */
  readyMs: number;
  /** Until the next session create succeeded (the integrators' view). */
  firstCreateMs?: number;
}

async function disturb(s: Stack, what: string, action: () => Promise<void>): Promise<Disturbance> {
  const at = Date.now();
  await action();
  const backMs = Date.now() - at;
  await waitFor(() => allReady(s), 60_000, 100, `every service ready after ${what}`);
  return { what, at, backMs, readyMs: Date.now() - at };
}

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function unpublishedOutboxRows(url: string): Promise<Record<string, number>> {
  const schemas = await query<{ table_schema: string }>(
    url,
    "SELECT table_schema FROM information_schema.tables WHERE table_name = 'outbox' ORDER BY 1",
  );
  const counts: Record<string, number> = {};
  for (const { table_schema: schema } of schemas) {
    const [row] = await query<{ n: string }>(url, `SELECT count(*) AS n FROM "${schema}".outbox WHERE published_at IS NULL`);
    counts[schema] = Number(row!.n);
  }
  return counts;
}

test('under steady load, killed services and restarted PostgreSQL, RabbitMQ and Redis lose nothing and debit once', async () => {
  const s = stack!;
  const databaseUrl = s.env.DATABASE_URL!;
  const ops = new OpsClient({
    keysUrl: s.url('keys'),
    sessionsUrl: s.url('sessions'),
    dashboardUrl: s.url('dashboard'),
    internalToken: s.env.INTERNAL_TOKEN!,
  });
  const demo = await createDemo(ops, 100_000);
  const endpoint = await request(`${s.gatewayUrl}/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${demo.live_key.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver!.url, events: [CANCELED], description: 'chaos receiver' }),
  });
  expect(endpoint.statusCode).toBe(201);
  const endpointId = ((await endpoint.body.json()) as { id: string }).id;

  const load = new SteadyLoad(s.gatewayUrl, demo.live_key.secret, demo.project_id!);
  const started = Date.now();
  load.start(CLIENTS);
  await waitFor(() => load.outcome.created.size >= 20, 30_000, 100, 'the load running');

  const disturbances: Disturbance[] = [];
  for (const name of SERVICE_NAMES) {
    disturbances.push(await disturb(s, `kill -9 ${name}`, async () => void (await s.restart(name, 'SIGKILL'))));
    await sleep(SPACING_MS);
  }
  disturbances.push(await disturb(s, 'RabbitMQ killed and restarted', () => rabbit!.restartHard()));
  await sleep(SPACING_MS);
  disturbances.push(await disturb(s, 'PostgreSQL restarted -m immediate', () => postgres!.restartImmediate()));
  await sleep(SPACING_MS);
  disturbances.push(await disturb(s, 'Redis killed and restarted', () => redis!.restartHard()));
  await sleep(SPACING_MS);
  const outcome: Outcome = await load.stop();
  const loadSeconds = (Date.now() - started) / 1000;
  for (const d of disturbances) {
    const next = outcome.successes.filter((t) => t >= d.at).sort((a, b) => a - b)[0];
    if (next !== undefined) d.firstCreateMs = next - d.at;
  }

  // Drained: every outbox row published, every canceled session's webhook delivered and its message closed.
  const expectedEvents = new Map<string, string>([...outcome.canceled].map((id) => [eventId(demo.account_id, id, CANCELED), id]));
  const drainStarted = Date.now();
  await waitFor(
    async () => {
      const unpublished = await unpublishedOutboxRows(databaseUrl);
      if (Object.values(unpublished).some((n) => n > 0)) return false;
      const delivered = new Set(receiver!.hits.map((hit) => String(hit.body?.id)));
      if ([...expectedEvents.keys()].some((id) => !delivered.has(id))) return false;
      const [open] = await query<{ n: string }>(
        databaseUrl,
        "SELECT count(*) AS n FROM webhooks.messages WHERE endpoint_id = $1 AND status = 'pending'",
        [endpointId],
      );
      return Number(open!.n) === 0;
    },
    60_000,
    250,
    'the system drained (outboxes published, webhooks delivered)',
  ).catch(() => undefined); // the assertions below say what is missing
  const drainMs = Date.now() - drainStarted;

  // ── Accounting ──
  const sessions = await query<{ id: string; status: string }>(
    databaseUrl,
    'SELECT id, status FROM sessions.sessions WHERE account_id = $1',
    [demo.account_id],
  );
  const debits = await query<{ session_id: string; n: string }>(
    databaseUrl,
    "SELECT session_id, count(*) AS n FROM sessions.balance_ledger WHERE account_id = $1 AND kind = 'debit' GROUP BY session_id",
    [demo.account_id],
  );
  const [sums] = await query<{ credits: string; debits: string; balance: string }>(
    databaseUrl,
    `SELECT (SELECT coalesce(sum(tokens), 0) FROM sessions.balance_ledger WHERE account_id = $1 AND kind = 'credit') AS credits,
            (SELECT coalesce(sum(tokens), 0) FROM sessions.balance_ledger WHERE account_id = $1 AND kind = 'debit') AS debits,
            (SELECT balance FROM sessions.balances WHERE account_id = $1) AS balance`,
    [demo.account_id],
  );
  const messages = await query<{ event_id: string; status: string; attempts: number }>(
    databaseUrl,
    'SELECT event_id, status, attempts FROM webhooks.messages WHERE endpoint_id = $1',
    [endpointId],
  );
  const storedEvents = await query<{ id: string }>(
    databaseUrl,
    'SELECT id FROM webhooks.events WHERE account_id = $1 AND type = $2',
    [demo.account_id, CANCELED],
  );
  const unpublished = await unpublishedOutboxRows(databaseUrl);

  const acknowledged = new Set(outcome.created.values());
  const byId = new Map(sessions.map((row) => [row.id, row.status]));
  const hitsPerEvent = new Map<string, number>();
  for (const hit of receiver!.hits) {
    const id = String(hit.body?.id);
    hitsPerEvent.set(id, (hitsPerEvent.get(id) ?? 0) + 1);
  }
  const duplicateDeliveries = [...hitsPerEvent.values()].reduce((sum, n) => sum + n - 1, 0);

  const report = {
    loadSeconds: Math.round(loadSeconds),
    clients: CLIENTS,
    sessionsAcknowledged: acknowledged.size,
    sessionsStored: sessions.length,
    requests: outcome.attempts,
    retries: outcome.retries,
    unansweredCreates: outcome.unanswered.length,
    debits: debits.length,
    ledger: sums,
    canceled: outcome.canceled.size,
    eventsStored: storedEvents.length,
    webhookRequests: receiver!.hits.length,
    webhookEventsDelivered: hitsPerEvent.size,
    duplicateDeliveries,
    unpublishedOutboxRows: unpublished,
    drainMs,
    disturbances: disturbances.map(({ what, backMs, readyMs, firstCreateMs }) => ({ what, backMs, readyMs, firstCreateMs })),
  };
  writeFileSync(path.join(ROOT_DIR, '.run', 'chaos-report.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`chaos report (also .run/chaos-report.json):\n${JSON.stringify(report, null, 2)}`);

  // Every create was answered in the end, with one session per Idempotency-Key and its first answer replayed.
  expect(outcome.unanswered).toEqual([]);
  expect(outcome.uncanceled).toEqual([]);
  expect(outcome.mismatches).toEqual([]);
  expect(acknowledged.size).toBe(outcome.created.size);
  expect([...acknowledged].filter((id) => !byId.has(id))).toEqual([]);
  // No session that no integrator was answered about (a retry that created a second one).
  expect(sessions.filter((row) => !acknowledged.has(row.id)).map((row) => row.id)).toEqual([]);
  for (const id of outcome.canceled) expect(byId.get(id)).toBe('canceled');

  // Exactly one debit per session, and the balance is what the ledger says.
  expect(debits.filter((row) => Number(row.n) !== 1)).toEqual([]);
  expect(new Set(debits.map((row) => row.session_id))).toEqual(acknowledged);
  expect(Number(sums!.debits)).toBe(acknowledged.size);
  expect(Number(sums!.balance)).toBe(Number(sums!.credits) - Number(sums!.debits));

  // Every domain event published; every cancel's event stored once and delivered at least once.
  expect(unpublished).toEqual(Object.fromEntries(Object.keys(unpublished).map((schema) => [schema, 0])));
  expect(new Set(storedEvents.map((row) => row.id))).toEqual(new Set(expectedEvents.keys()));
  expect([...expectedEvents.keys()].filter((id) => !hitsPerEvent.has(id))).toEqual([]);
  expect([...hitsPerEvent.keys()].filter((id) => !expectedEvents.has(id))).toEqual([]);
  expect(messages.filter((row) => row.status !== 'succeeded')).toEqual([]);
  expect(messages).toHaveLength(expectedEvents.size);
}, 240_000);
