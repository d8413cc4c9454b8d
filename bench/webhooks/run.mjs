#!/usr/bin/env node
// Webhooks benchmark: `node bench/webhooks/run.mjs` (after `pnpm exec turbo run build`).
// Starts its own stack (database idv_bench_webhooks, TIME_SCALE=1, gateway rate limit raised to
// 100000/s so the API does not throttle the load generator) and prints three figures:
//   A. sustained signed deliveries per second to a local receiver answering 200;
//   B. end-to-end latency, cancel through the API → receiver 2xx, p50/p99 at 100 events/s;
//   C. the same with 10% of the endpoints failing (they hang past the 10 s timeout), against C0, the
//      same 10-account layout with every endpoint healthy.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileWindows } from '../profile/windows.mjs';
import { reportResult } from '../report/result.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(ROOT, 'services', 'webhooks', 'package.json'));
const { Stack, SIMPLE_CONFIG } = require('@idv/testkit');
const { OpsClient } = require('@idv/ops');
const { eventId, newId } = require('@idv/contracts');
const testkitRequire = createRequire(require.resolve('@idv/testkit'));
const amqp = testkitRequire('amqplib');
const { Pool } = testkitRequire('undici');
const pg = testkitRequire('pg');

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const THROUGHPUT_EVENTS = env('BENCH_THROUGHPUT_EVENTS', 3000);
const FAN_OUT = env('BENCH_FAN_OUT', 10);
const RATE = env('BENCH_RATE', 100);
const SECONDS = env('BENCH_SECONDS', 15);
const CANCELED = 'verification_session.canceled';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const fmt = (ms) => `${ms.toFixed(1)} ms`;

/** One local receiver: answers 200 (or hangs for failing paths) and records arrival per event id. */
function startReceiver() {
  const arrivals = new Map(); // `${path}|${eventId}` -> ms
  let count = 0;
  let first = 0;
  let last = 0;
  let verified = 0;
  const secrets = new Map(); // path -> secret
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url.startsWith('/hang')) return; // never answers: the sender times out
      const now = performance.now();
      res.writeHead(200).end();
      count += 1;
      first ||= now;
      last = now;
      arrivals.set(`${req.url}|${req.headers['x-service-event-id']}`, now);
      // Check one signature in 100 (the receiver shares the CPU with everything else).
      const secret = secrets.get(req.url);
      if (secret && count % 100 === 1) {
        const header = String(req.headers['x-service-signature']);
        const t = header.split(',')[0].slice(2);
        const expected = createHmac('sha256', secret)
          .update(`${t}.${Buffer.concat(chunks).toString('utf8')}`)
          .digest('hex');
        if (!header.includes(`v1=${expected}`)) throw new Error('bad signature');
        verified += 1;
      }
    });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: (p) => `http://127.0.0.1:${server.address().port}${p}`,
        secrets,
        arrivals,
        stats: () => ({ count, first, last, verified }),
        reset: () => {
          count = 0;
          first = 0;
          last = 0;
        },
        close: () => {
          server.closeAllConnections();
          return new Promise((r) => server.close(r));
        },
      }),
    ),
  );
}

async function main() {
  // A fresh database each run: leftovers of a previous run (queued retries) would skew the figures.
  const admin = new pg.Client({
    connectionString: process.env.POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS idv_bench_webhooks WITH (FORCE)');
  await admin.end();
  console.log('starting the bench stack (keys, sessions, webhooks, gateway)...');
  const services = ['keys', 'sessions', 'webhooks', 'gateway'];
  const stack = await Stack.start({
    database: 'idv_bench_webhooks',
    services: [services[0]],
    env: { TIME_SCALE: '1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' },
  });
  for (const name of services.slice(1)) await stack.startService(name); // one at a time: migrations
  const ops = new OpsClient({
    keysUrl: stack.url('keys'),
    sessionsUrl: stack.url('sessions'),
    internalToken: stack.env.INTERNAL_TOKEN,
  });
  const gateway = new Pool(stack.gatewayUrl, { connections: 64 });
  const receiver = await startReceiver();
  let n = 0;

  const apiCall = async (key, method, p, body) => {
    const res = await gateway.request({
      method,
      path: p,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${p}: ${res.statusCode} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const tenant = async () => {
    n += 1;
    const account = await ops.createAccount({ name: `Bench ${n}`, email: `bench-${Date.now()}-${n}@example.com` });
    await ops.approveAccount(account.id);
    const project = await ops.createProject({ account_id: account.id, name: `bench-${n}` });
    await ops.publishConfig(project.id, 'test', SIMPLE_CONFIG);
    const key = await ops.createKey({ account_id: account.id, mode: 'test', name: `bench-${n}` });
    return { accountId: account.id, projectId: project.id, key: key.secret };
  };
  const endpoint = async (t, p) => {
    const created = await apiCall(t.key, 'POST', '/v1/webhook-endpoints', { url: receiver.url(p), events: [CANCELED] });
    receiver.secrets.set(p, created.secret);
    return created;
  };

  // ---------------------------------------------------------------- A. throughput
  const a = await tenant();
  for (let i = 0; i < FAN_OUT; i++) await endpoint(a, `/a/${i}`);
  const connection = await amqp.connect(stack.env.AMQP_URL);
  const channel = await connection.createConfirmChannel();
  const exchange = `${stack.env.BROKER_NAMESPACE}.events`;
  const publish = (t) => {
    const sessionId = newId('session');
    const now = new Date().toISOString();
    const data = {
      account_id: t.accountId,
      session: {
        id: sessionId,
        object: 'verification_session',
        status: 'canceled',
        mode: 'test',
        project_id: t.projectId,
        config_version: 'cfg_00000001',
        created_at: now,
        completed_at: now,
      },
      webhook_events: [CANCELED],
      options: { documentData: false, verifiedChannels: false, formData: false, evidenceLinks: false },
    };
    channel.publish(
      exchange,
      CANCELED,
      Buffer.from(JSON.stringify({ id: eventId(t.accountId, sessionId, CANCELED), type: CANCELED, occurred_at: now, data })),
      { persistent: true },
    );
  };
  const expected = THROUGHPUT_EVENTS * FAN_OUT;
  const phases = new Set((process.env.BENCH_PHASES ?? 'A,B,C0,C').split(','));
  console.log(`A. ${THROUGHPUT_EVENTS} session events × ${FAN_OUT} endpoints = ${expected} signed deliveries...`);
  receiver.reset();
  // For bench/profile (--bench webhooks): the window of phase A, counted in deliveries.
  const windows = profileWindows({ webhooks: stack.url('webhooks'), sessions: stack.url('sessions') });
  const runA = async () => {
    for (let i = 0; i < THROUGHPUT_EVENTS; i++) {
      publish(a);
      if (i % 500 === 499) await channel.waitForConfirms();
    }
    await channel.waitForConfirms();
    const deadline = Date.now() + 300_000;
    while (receiver.stats().count < expected && Date.now() < deadline) await sleep(100);
    return receiver.stats();
  };
  if (phases.has('A')) await windows.measure('deliveries', runA, (stats) => stats.count);
  const sA = receiver.stats();
  const throughput = (sA.count / (sA.last - sA.first)) * 1000;
  await connection.close();

  // ---------------------------------------------------------------- B and C. latency at RATE events/s
  const latencyRun = async (label, tenants, failingIndex) => {
    const total = RATE * SECONDS;
    console.log(`${label}: creating ${total} sessions in ${tenants.length} account(s)...`);
    const sessions = [];
    for (let i = 0; i < total; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, total - i) }, (_v, j) => {
          const t = tenants[(i + j) % tenants.length];
          return apiCall(t.key, 'POST', '/v1/verification-sessions', { project_id: t.projectId }).then((s) => ({
            t,
            id: s.id,
            index: (i + j) % tenants.length,
          }));
        }),
      );
      sessions.push(...batch);
    }
    console.log(`${label}: canceling ${total} sessions at ${RATE}/s...`);
    const sent = new Map();
    const start = performance.now();
    const inflight = [];
    for (const [i, s] of sessions.entries()) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const key = `/${label}/${s.index}|${eventId(s.t.accountId, s.id, CANCELED)}`;
      sent.set(key, { at: performance.now(), failing: s.index === failingIndex });
      inflight.push(apiCall(s.t.key, 'POST', `/v1/verification-sessions/${s.id}/cancel`));
    }
    await Promise.all(inflight);
    const healthy = [...sent].filter(([, v]) => !v.failing);
    const until = Date.now() + 60_000;
    while (healthy.some(([k]) => !receiver.arrivals.has(k)) && Date.now() < until) await sleep(100);
    const latencies = healthy.filter(([k]) => receiver.arrivals.has(k)).map(([k, v]) => receiver.arrivals.get(k) - v.at);
    // Where the time went, from the webhooks schema: sessions' occurred_at → fan-out → 2xx recorded.
    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    const { rows } = await db.query(
      `SELECT extract(epoch FROM e.created_at - e.occurred_at) * 1000 AS upstream,
              extract(epoch FROM d.created_at - e.created_at) * 1000 AS webhooks
       FROM webhooks.events e JOIN webhooks.deliveries d ON d.event_id = e.id AND d.status = 'succeeded'
       WHERE e.account_id = ANY ($1::text[])`,
      [tenants.filter((_t, i) => i !== failingIndex).map((t) => t.accountId)],
    );
    await db.end();
    const upstream = rows.map((r) => Number(r.upstream));
    const own = rows.map((r) => Number(r.webhooks));
    return {
      delivered: latencies.length,
      expected: healthy.length,
      p50: pct(latencies, 50),
      p99: pct(latencies, 99),
      max: Math.max(...latencies),
      split:
        `before webhooks (sessions outbox → broker → fan-out) p50 ${fmt(pct(upstream, 50))} p99 ${fmt(pct(upstream, 99))}; ` +
        `inside webhooks (fan-out → 2xx recorded) p50 ${fmt(pct(own, 50))} p99 ${fmt(pct(own, 99))}`,
    };
  };

  const none = { p50: NaN, p99: NaN, max: NaN, delivered: 0, expected: 0, split: '' };
  const runB = async () => {
    const b = await tenant();
    await endpoint(b, '/B/0');
    return latencyRun('B', [b], -1);
  };
  let resultB = phases.has('B') && !phases.has('B-last') ? await runB() : none;

  const c0Tenants = [];
  for (let i = 0; i < 10; i++) c0Tenants.push(await tenant());
  for (const [i, t] of c0Tenants.entries()) await endpoint(t, `/C0/${i}`);
  const resultC0 = phases.has('C0') ? await latencyRun('C0', c0Tenants, -1) : none;

  const cTenants = [];
  for (let i = 0; i < 10; i++) cTenants.push(await tenant());
  for (const [i, t] of cTenants.entries()) await endpoint(t, i === 0 ? `/hang/C/${i}` : `/C/${i}`);
  const resultC = phases.has('C') ? await latencyRun('C', cTenants, 0) : none;
  if (phases.has('B-last')) resultB = await runB();

  const metrics = await (await fetch(`${stack.url('webhooks')}/metrics`)).text();
  const line = (name) =>
    metrics
      .split('\n')
      .filter((l) => l.startsWith(name))
      .join('\n');

  console.log('\n=== webhooks benchmark (2-core machine, one webhooks process, TIME_SCALE=1) ===');
  console.log(
    `A. sustained deliveries: ${throughput.toFixed(0)} deliveries/s (${sA.count}/${expected} delivered, ${FAN_OUT} endpoints, ${sA.verified} signatures sampled and verified)`,
  );
  console.log(
    `B. cancel → receiver 2xx at ${RATE} events/s, 1 endpoint: p50 ${fmt(resultB.p50)}, p99 ${fmt(resultB.p99)}, max ${fmt(resultB.max)} (${resultB.delivered}/${resultB.expected})`,
  );
  console.log(
    `C0. same, 10 accounts with 1 endpoint each, all healthy: p50 ${fmt(resultC0.p50)}, p99 ${fmt(resultC0.p99)}, max ${fmt(resultC0.max)} (${resultC0.delivered}/${resultC0.expected})`,
  );
  console.log(
    `C. same, 10 accounts, 1 of 10 endpoints hanging: healthy p50 ${fmt(resultC.p50)}, p99 ${fmt(resultC.p99)}, max ${fmt(resultC.max)} (${resultC.delivered}/${resultC.expected})`,
  );
  console.log(`   B  ${resultB.split}\n   C0 ${resultC0.split}\n   C  ${resultC.split}`);
  const [load1] = (await import('node:os')).loadavg();
  console.log(`machine load average (1 min) at the end: ${load1.toFixed(1)} on ${(await import('node:os')).cpus().length} cores`);
  console.log(line('webhook_open_circuits'));
  reportResult({
    rate: RATE,
    seconds: SECONDS,
    fanOut: FAN_OUT,
    A: { deliveriesPerSecond: throughput, delivered: sA.count, expected },
    B: resultB,
    C0: resultC0,
    C: resultC,
  });
  console.log(line('webhook_deliveries_total'));

  await gateway.close();
  await receiver.close();
  await stack.stop();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
