#!/usr/bin/env node
// The background-work primitive against a maintained job queue: `node bench/webhooks/queue.mjs`
// (after `pnpm exec turbo run build`). Issue 39 chose the kit's `BackgroundJob` over graphile-worker
// (docs/decisions.md "One background-work primitive"); this measures the two on the work the webhook
// dispatcher does, with everything else equal:
//   kit       the kit's BackgroundJob claiming rows of our own table (`FOR UPDATE SKIP LOCKED`, a lease,
//             woken by NOTIFY), as services/webhooks/src/adapters/dispatcher.ts does;
//   graphile  graphile-worker 0.18 with its defaults: each row of our table is also a job added in the
//             same statement (`graphile_worker.add_job`), and the task reads the row by id;
//   graphile-batched  the same with graphile-worker's documented throughput options (a local queue of
//             the concurrency's size, completions batched).
// Every delivery is a signed POST to a local receiver answering 200, then the row marked delivered; the
// concurrency is webhooks' default (64). Per run (a fresh database each, the modes alternating):
//   A. a backlog of BENCH_QUEUE_BACKLOG rows delivered: deliveries per second;
//   B. BENCH_QUEUE_RATE rows per second for BENCH_QUEUE_SECONDS: insert → receiver, p50/p99;
// and the CPU seconds of the worker's process and of PostgreSQL's processes over each phase.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineReference } from '../machine-reference.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const serviceRequire = createRequire(path.join(ROOT, 'services', 'webhooks', 'package.json'));
const rootRequire = createRequire(path.join(ROOT, 'package.json'));
const testkitRequire = createRequire(serviceRequire.resolve('@idv/testkit'));
const pg = testkitRequire('pg');
const { Pool: HttpPool } = testkitRequire('undici');

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const BACKLOG = env('BENCH_QUEUE_BACKLOG', 5000);
const RATE = env('BENCH_QUEUE_RATE', 100);
const SECONDS = env('BENCH_QUEUE_SECONDS', 10);
const ROUNDS = env('BENCH_QUEUE_ROUNDS', 3);
const CONCURRENCY = 64;
const DATABASE = 'idv_bench_queue';
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE_URL = ADMIN_URL.replace(/\/[^/]*$/, `/${DATABASE}`);
const CHANNEL = 'bench_deliveries_due';
const SECRET = 'bench-signing-secret';
const MODES = ['kit', 'graphile', 'graphile-batched'];

const nowMs = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const median = (values) => pct(values, 50);

/**
 * CPU seconds of PostgreSQL: its live processes, plus what the server's exited backends used (a backend
 * that ends is reaped by the postmaster, whose children's time then holds it).
 */
function postgresCpuSeconds() {
  const ticks = 100; // USER_HZ on Linux
  const processes = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('postgres')) continue;
      const fields = stat
        .slice(close + 2)
        .split(' ')
        .map(Number);
      // after the name: state, ppid, … utime (12th), stime, cutime, cstime
      processes.push({ pid: Number(pid), ppid: fields[1], own: fields[11] + fields[12], children: fields[13] + fields[14] });
    } catch {
      // the process ended while we looked
    }
  }
  const pids = new Set(processes.map((p) => p.pid));
  const reaped = processes.filter((p) => !pids.has(p.ppid)).reduce((sum, p) => sum + p.children, 0);
  return (processes.reduce((sum, p) => sum + p.own, 0) + reaped) / ticks;
}

const processCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

// ---------------------------------------------------------------------------------------------------
// The worker's process: one mode, phases A and B, figures on stdout as one JSON line.

const SCHEMA = `
  CREATE TABLE deliveries (
    id bigserial PRIMARY KEY,
    body text NOT NULL,
    enqueued_ms double precision NOT NULL,
    due_at timestamptz NOT NULL DEFAULT now(),
    lease_until timestamptz,
    claims integer NOT NULL DEFAULT 0,
    delivered_at timestamptz
  );
  CREATE INDEX deliveries_due ON deliveries (due_at) WHERE delivered_at IS NULL;
`;

function bodyOf(i) {
  return JSON.stringify({ id: `evt_${String(i).padStart(26, '0')}`, type: 'verification_session.canceled', data: { n: i } });
}

/** The rows and, per mode, how they are announced: a NOTIFY for the kit, a job per row for graphile. */
function producerFor(mode, pool) {
  const insertOne =
    mode === 'kit'
      ? `WITH ins AS (INSERT INTO deliveries (body, enqueued_ms) VALUES ($1, $2) RETURNING id)
         SELECT pg_notify('${CHANNEL}', '') FROM ins`
      : `WITH ins AS (INSERT INTO deliveries (body, enqueued_ms) VALUES ($1, $2) RETURNING id)
         SELECT graphile_worker.add_job('deliver', json_build_object('id', ins.id)) FROM ins`;
  return {
    one: (i) => pool.query(insertOne, [bodyOf(i), nowMs()]),
    async backlog(count) {
      for (let from = 0; from < count; from += 500) {
        const size = Math.min(500, count - from);
        const bodies = Array.from({ length: size }, (_, k) => bodyOf(from + k));
        const insert = `INSERT INTO deliveries (body, enqueued_ms) SELECT b, $2 FROM unnest($1::text[]) AS b RETURNING id`;
        if (mode === 'kit') await pool.query(insert, [bodies, nowMs()]);
        else
          await pool.query(
            `WITH ins AS (${insert}) SELECT graphile_worker.add_job('deliver', json_build_object('id', ins.id)) FROM ins`,
            [bodies, nowMs()],
          );
      }
    },
  };
}

function sender(origin) {
  const client = new HttpPool(origin, { connections: CONCURRENCY });
  return {
    async send(id, body) {
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha256', SECRET).update(`${id}.${timestamp}.${body}`).digest('base64');
      const res = await client.request({
        path: '/hook',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-signature': `v1,${signature}`,
          'x-service-timestamp': String(timestamp),
        },
        body,
      });
      await res.body.dump();
      if (res.statusCode >= 300) throw new Error(`receiver answered ${res.statusCode}`);
    },
    close: () => client.close(),
  };
}

async function startKitWorker(pool, send) {
  const { BackgroundJob, createLogger } = serviceRequire('@idv/kit');
  const logger = createLogger({ service: 'bench-queue', level: 'warn' });
  const job = new BackgroundJob({
    name: 'bench-dispatch',
    logger,
    idleMs: 1000, // WEBHOOKS_POLL_MS' default
    listen: { channel: CHANNEL, url: DATABASE_URL },
    work: {
      kind: 'claimed',
      concurrency: CONCURRENCY,
      batch: 100, // the dispatcher's MAX_CLAIM
      claim: async (limit) =>
        (
          await pool.query(
            `UPDATE deliveries SET lease_until = now() + interval '30 seconds', claims = claims + 1
              WHERE id IN (SELECT id FROM deliveries
                            WHERE delivered_at IS NULL AND due_at <= now() AND (lease_until IS NULL OR lease_until < now())
                            ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
              RETURNING id, body`,
            [limit],
          )
        ).rows,
      handle: async (row) => {
        await send(row.id, row.body);
        await pool.query('UPDATE deliveries SET delivered_at = now(), lease_until = NULL WHERE id = $1', [row.id]);
      },
      keyOf: (row) => String(row.id),
      nextDueInMs: async () => {
        const { rows } = await pool.query(
          `SELECT extract(epoch FROM min(coalesce(greatest(lease_until, due_at), due_at)) - now()) * 1000 AS ms
             FROM deliveries WHERE delivered_at IS NULL`,
        );
        return rows[0].ms === null ? null : Number(rows[0].ms);
      },
    },
  });
  await job.start();
  return () => job.stop();
}

async function startGraphileWorker(pool, send, batched) {
  const { run } = rootRequire('graphile-worker');
  const runner = await run({
    pgPool: pool,
    concurrency: CONCURRENCY,
    noHandleSignals: true,
    pollInterval: 1000,
    logger: quietGraphileLogger(),
    taskList: {
      deliver: async (payload) => {
        const { rows } = await pool.query('SELECT id, body FROM deliveries WHERE id = $1 AND delivered_at IS NULL', [payload.id]);
        if (rows.length === 0) return;
        await send(rows[0].id, rows[0].body);
        await pool.query('UPDATE deliveries SET delivered_at = now() WHERE id = $1', [rows[0].id]);
      },
    },
    ...(batched ? { preset: { worker: { localQueue: { size: CONCURRENCY }, completeJobBatchDelay: 0 } } } : {}),
  });
  return () => runner.stop();
}

function quietGraphileLogger() {
  const { Logger } = rootRequire('graphile-worker');
  return new Logger(() => (level, message) => {
    if (level === 'error') process.stderr.write(`graphile-worker: ${message}\n`);
  });
}

async function worker(mode, receiverOrigin) {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 20 });
  const onError = (error) => process.stderr.write(`database client error: ${error.message}\n`);
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  await pool.query(SCHEMA);
  if (mode !== 'kit') await rootRequire('graphile-worker').runMigrations({ pgPool: pool, logger: quietGraphileLogger() });
  const producer = producerFor(mode, pool);
  const { send, close } = sender(receiverOrigin);
  const delivered = async () =>
    Number((await pool.query('SELECT count(*) AS n FROM deliveries WHERE delivered_at IS NOT NULL')).rows[0].n);
  const waitFor = async (count) => {
    while ((await delivered()) < count) await sleep(20);
  };

  // A: the backlog is written first, then the worker starts on it.
  await producer.backlog(BACKLOG);
  const cpuA = [processCpuSeconds(), postgresCpuSeconds()];
  const startA = nowMs();
  const start = mode === 'kit' ? startKitWorker : startGraphileWorker;
  const stop = await start(pool, send, mode === 'graphile-batched');
  await waitFor(BACKLOG);
  const secondsA = (nowMs() - startA) / 1000;
  const a = {
    perSecond: BACKLOG / secondsA,
    workerCpuMsPerDelivery: ((processCpuSeconds() - cpuA[0]) * 1000) / BACKLOG,
    postgresCpuMsPerDelivery: ((postgresCpuSeconds() - cpuA[1]) * 1000) / BACKLOG,
  };

  // B: rows arrive one at a time at RATE per second, the worker already waiting.
  const total = RATE * SECONDS;
  const cpuB = [processCpuSeconds(), postgresCpuSeconds()];
  const startB = nowMs();
  const inserts = [];
  for (let i = 0; i < total; i += 1) {
    const at = startB + (i * 1000) / RATE;
    const wait = at - nowMs();
    if (wait > 0) await sleep(wait);
    inserts.push(producer.one(BACKLOG + i));
  }
  await Promise.all(inserts);
  await waitFor(BACKLOG + total);
  const b = {
    workerCpuMsPerDelivery: ((processCpuSeconds() - cpuB[0]) * 1000) / total,
    postgresCpuMsPerDelivery: ((postgresCpuSeconds() - cpuB[1]) * 1000) / total,
  };
  await stop();
  await close();
  await pool.end();
  process.stdout.write(`${JSON.stringify({ mode, a, b })}\n`);
}

// ---------------------------------------------------------------------------------------------------
// The parent: the receiver, the yardstick, the runs alternating, the table.

function startReceiver() {
  const arrivals = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = nowMs();
      res.writeHead(200).end();
      const body = Buffer.concat(chunks).toString();
      arrivals.push({ n: JSON.parse(body).data.n, at });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        origin: `http://127.0.0.1:${server.address().port}`,
        take: () => arrivals.splice(0),
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

function runWorker(mode, origin) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--worker', mode, origin], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop())) : reject(new Error(`${mode} worker exited ${code}`)),
    );
  });
}

async function main() {
  const reference = await machineReference();
  console.log(`machine yardstick: ${reference.toFixed(0)} requests/s (bench/machine-reference.mjs)`);
  console.log(`backlog ${BACKLOG}, ${RATE}/s for ${SECONDS} s, concurrency ${CONCURRENCY}, ${ROUNDS} rounds alternating\n`);
  const receiver = await startReceiver();
  const results = Object.fromEntries(MODES.map((mode) => [mode, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const mode of round % 2 === 0 ? MODES : [...MODES].reverse()) {
      receiver.take();
      const figures = await runWorker(mode, receiver.origin);
      // Enqueue time is in the body's row; the receiver saw the arrival: latency for phase B's rows.
      const arrivals = receiver.take();
      const latencies = await latenciesOfPhaseB(arrivals);
      const duplicates = arrivals.length - new Set(arrivals.map((arrival) => arrival.n)).size;
      const run = { ...figures, duplicates, p50: pct(latencies, 50), p99: pct(latencies, 99), received: latencies.length };
      results[mode].push(run);
      console.log(
        `${mode.padEnd(17)} A ${run.a.perSecond.toFixed(0).padStart(5)}/s  CPU/delivery worker ${run.a.workerCpuMsPerDelivery.toFixed(3)} ms, postgres ${run.a.postgresCpuMsPerDelivery.toFixed(3)} ms` +
          ` | B p50 ${run.p50.toFixed(1)} ms p99 ${run.p99.toFixed(1)} ms (${run.received}/${RATE * SECONDS})  CPU/delivery worker ${run.b.workerCpuMsPerDelivery.toFixed(3)} ms, postgres ${run.b.postgresCpuMsPerDelivery.toFixed(3)} ms` +
          `  delivered twice: ${run.duplicates}`,
      );
    }
  }
  await receiver.close();
  console.log('\nmedians over the rounds:');
  console.log(
    'mode              | A deliveries/s | A CPU ms/delivery (worker + postgres) | B p50 ms | B p99 ms | B CPU ms/delivery (worker + postgres)',
  );
  for (const mode of MODES) {
    const runs = results[mode];
    const m = (f) => median(runs.map(f));
    console.log(
      `${mode.padEnd(17)} | ${m((r) => r.a.perSecond)
        .toFixed(0)
        .padStart(
          14,
        )} | ${m((r) => r.a.workerCpuMsPerDelivery).toFixed(3)} + ${m((r) => r.a.postgresCpuMsPerDelivery).toFixed(3)}` +
        ` | ${m((r) => r.p50)
          .toFixed(1)
          .padStart(8)} | ${m((r) => r.p99)
          .toFixed(1)
          .padStart(
            8,
          )} | ${m((r) => r.b.workerCpuMsPerDelivery).toFixed(3)} + ${m((r) => r.b.postgresCpuMsPerDelivery).toFixed(3)}`,
    );
  }
}

/** Phase B's rows are those numbered from BACKLOG; their enqueue time is read back from the database. */
async function latenciesOfPhaseB(arrivals) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT (body::json->$1::text->>$2::text)::int AS n, enqueued_ms FROM deliveries WHERE id > $3',
      ['data', 'n', BACKLOG],
    );
    const enqueued = new Map(rows.map((row) => [row.n, Number(row.enqueued_ms)]));
    return arrivals.filter((a) => enqueued.has(a.n)).map((a) => a.at - enqueued.get(a.n));
  } finally {
    await client.end();
  }
}

if (process.argv[2] === '--worker') {
  worker(process.argv[3], process.argv[4]).catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
