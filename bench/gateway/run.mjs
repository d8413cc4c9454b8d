#!/usr/bin/env node
// Gateway overhead benchmark: authenticated GET through the gateway against the same upstream called
// directly (with the identity headers the gateway would add), on loopback only, bounded in time.
//
//   node bench/gateway/run.mjs [--duration 10] [--connections 16] [--repeat 2] [--upstream auto|sessions|stub]
//                              [--profile] [--no-write] [--gateway-main path/to/main.js]
//
// Upstream: the real sessions service (GET /v1/verification-sessions?limit=1) when
// services/sessions/dist/main.js exists and answers 200; otherwise a small HTTP server in a child
// process answering a fixed JSON body, registered as the stack's SESSIONS_URL.
// Two measurements per target:
//  - throughput: autocannon, N keep-alive connections for `--duration` seconds (saturates 2 cores);
//  - latency: one keep-alive connection, sequential requests (up to 20,000 or `--duration` seconds),
//    timed with hrtime, so p50/p99 have microsecond resolution and measure the per-request cost.
// --gateway-main runs another build of the gateway (e.g. a patched copy) in place of services/gateway/dist.
// Needs the built packages (`pnpm build`) and PostgreSQL, RabbitMQ and Redis (scripts/ensure-infra.sh).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { reportResult } from '../report/result.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(ROOT, 'package.json'));
const { Stack, freePort } = require('./packages/testkit/dist/index.js');
const { OpsClient } = require('./packages/ops/dist/index.js');
const { identityContext, identityHeaders } = require('./packages/kit/dist/index.js');
const autocannon = require('autocannon');
const { Client } = require('undici');

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    upstream: { type: 'string', default: 'auto' },
    profile: { type: 'boolean', default: false },
    'gateway-main': { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    repeat: { type: 'string', default: '2' },
  },
});
const DURATION_S = Math.min(Math.max(Number(args.duration) || 10, 1), 60);
const REPEAT = Math.min(Math.max(Number(args.repeat) || 2, 1), 5);
const CONNECTIONS = Math.min(Math.max(Number(args.connections) || 16, 1), 256);
const LATENCY_MAX_REQUESTS = 20_000;
const PATH = '/v1/verification-sessions?limit=1';
const SESSIONS_MAIN = path.join(ROOT, 'services', 'sessions', 'dist', 'main.js');
const log = (message) => process.stderr.write(`[bench] ${message}\n`);

/** The stub upstream, in its own process so it does not share an event loop with the load generator. */
async function startStub() {
  const port = await freePort();
  const code = `
    const body = JSON.stringify({ object: 'list', data: [{ id: 'vs_01JBENCH0000000000000000', object: 'verification_session', status: 'pending' }], has_more: false, next_cursor: null });
    require('node:http').createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }).listen(${port}, '127.0.0.1', () => process.send('ready'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (c) => reject(new Error(`stub upstream exited ${c}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

const PROFILE_DIR = path.join(ROOT, '.run', 'bench-profile');

/** Environment that makes a gateway record a CPU profile (bench/gateway/cpu-profile.js) when --profile is given. */
function profileEnv() {
  if (!args.profile) return {};
  mkdirSync(PROFILE_DIR, { recursive: true });
  return {
    NODE_OPTIONS: `--require ${path.join(ROOT, 'bench', 'gateway', 'cpu-profile.js')}`,
    BENCH_CPU_PROFILE_DIR: PROFILE_DIR,
  };
}

async function startStack(upstream, stubUrl) {
  return Stack.start({
    database: 'idv_bench',
    services: [...(upstream === 'sessions' ? ['keys', 'sessions'] : ['keys']), ...(args['gateway-main'] ? [] : ['gateway'])],
    env: {
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      ...(stubUrl ? { SESSIONS_URL: stubUrl } : {}),
    },
    serviceEnv: { gateway: profileEnv() },
  });
}

/** CPU time (ms) a process has used so far, from /proc (Linux); null elsewhere. */
function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in USER_HZ (100)
  } catch {
    return null;
  }
}

/** Busy and total CPU time of the whole machine (ms), from /proc/stat. */
function machineCpuMs() {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    const idle = ticks[3] + (ticks[4] ?? 0);
    return { busy: ((total - idle) * 1000) / 100, total: (total * 1000) / 100 };
  } catch {
    return null;
  }
}

function pidsByName(name) {
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          return readFileSync(`/proc/${d}/comm`, 'utf8').trim() === name;
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Runs `work` and returns its result with the CPU each watched process used per request (µs), and
 * how much of the machine's CPU went to processes outside the benchmark (other work on the machine).
 */
async function withCpu(watched, work) {
  // `watched`: name → function returning the pids of that part now (PostgreSQL backends come and go).
  const pidsNow = async () =>
    Object.fromEntries(await Promise.all(Object.entries(watched).map(async ([n, f]) => [n, await f()])));
  const startPids = await pidsNow();
  const before = Object.fromEntries(
    Object.entries(startPids).map(([name, pids]) => [name, new Map(pids.map((pid) => [pid, processCpuMs(pid)]))]),
  );
  const selfBefore = process.cpuUsage();
  const machineBefore = machineCpuMs();
  const result = await work();
  const selfUsed = process.cpuUsage(selfBefore);
  const machineAfter = machineCpuMs();
  const endPids = await pidsNow();
  const requests = result.total ?? result.n;
  const cpu = { 'load generator': (selfUsed.user + selfUsed.system) / 1000 };
  for (const name of Object.keys(watched)) {
    // Processes started during the run count from zero; those that ended during it are lost (small).
    const pids = new Set([...before[name].keys(), ...endPids[name]]);
    let used = 0;
    let known = false;
    for (const pid of pids) {
      const start = before[name].has(pid) ? before[name].get(pid) : 0;
      const end = processCpuMs(pid);
      if (start === null || end === null) continue;
      used += end - start;
      known = true;
    }
    cpu[name] = known ? used : null;
  }
  const accounted = Object.values(cpu).reduce((a, b) => a + (b ?? 0), 0);
  const machine =
    machineBefore && machineAfter
      ? { busy: machineAfter.busy - machineBefore.busy, total: machineAfter.total - machineBefore.total }
      : null;
  return {
    ...result,
    cpuPerRequestUs: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v === null ? null : (v * 1000) / requests])),
    otherCpuShare: machine ? Math.max(0, machine.busy - accounted) / machine.total : null,
    machineBusyShare: machine ? machine.busy / machine.total : null,
  };
}

/** PostgreSQL backends serving the bench database (not those of other work on the machine). */
async function benchBackends(databaseUrl) {
  const pg = require('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.map((r) => r.pid);
  } catch {
    return [];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The gateway from --gateway-main, wired like the stack's own; returns its url, pid and a stop function. */
async function startCustomGateway(stack) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.resolve(args['gateway-main'])], {
    env: { ...process.env, ...stack.env, ...profileEnv(), PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`custom gateway exited ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return { url, pid: child.pid, stop: () => child.kill('SIGTERM') };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('custom gateway did not become ready');
}

/** Fixed headers, or a function giving each request its own (a signed identity is good for one request). */
const headersOf = (headers) => (typeof headers === 'function' ? headers() : headers);

async function getOnce(url, headers) {
  const { request } = require('undici');
  const response = await request(url, { headers: headersOf(headers) });
  const text = await response.body.text();
  return { status: response.statusCode, text };
}

async function throughput(url, headers) {
  const perRequest =
    typeof headers === 'function'
      ? { requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...headers() } }) }] }
      : { headers };
  const result = await autocannon({ url, ...perRequest, connections: CONNECTIONS, pipelining: 1, duration: DURATION_S });
  return {
    rps: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** Sequential requests on one keep-alive connection: the per-request cost without queueing. */
async function latency(url, headers) {
  const target = new URL(url);
  const client = new Client(target.origin, { pipelining: 1 });
  const samples = [];
  let failures = 0;
  const deadline = Date.now() + DURATION_S * 1000;
  try {
    for (let i = 0; i < 200; i++)
      await (
        await client.request({ method: 'GET', path: target.pathname + target.search, headers: headersOf(headers) })
      ).body.dump();
    while (samples.length < LATENCY_MAX_REQUESTS && Date.now() < deadline) {
      const started = process.hrtime.bigint();
      const response = await client.request({
        method: 'GET',
        path: target.pathname + target.search,
        headers: headersOf(headers),
      });
      await response.body.dump();
      samples.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (response.statusCode !== 200) failures++;
    }
  } finally {
    await client.close();
  }
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { n: samples.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), failures };
}

function machine() {
  const cpus = os.cpus();
  return `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

const ms = (v) => (v === undefined ? '-' : v.toFixed(3));
const signed = (text) => (text.startsWith('-') ? text : `+${text}`);

async function main() {
  let upstream = args.upstream === 'auto' ? (existsSync(SESSIONS_MAIN) ? 'sessions' : 'stub') : args.upstream;
  let fallbackReason = null;
  let stack;
  let stub;
  let customGateway;
  let gatewayHeaders;
  let directHeaders;
  let directUrl;
  let responseBytes = 0;
  let attempts = 0;

  for (;;) {
    try {
      if (upstream === 'stub') stub = await startStub();
      log(`starting keys + ${upstream === 'sessions' ? 'sessions' : 'stub upstream'} + gateway`);
      stack = await startStack(upstream, stub?.url);
      if (args['gateway-main']) customGateway = await startCustomGateway(stack);
      const ops = new OpsClient({
        keysUrl: stack.url('keys'),
        sessionsUrl: stack.url('sessions'),
        internalToken: stack.env.INTERNAL_TOKEN,
      });
      const account = await ops.createAccount({ name: 'Bench S.A.', email: 'bench@example.com' });
      await ops.approveAccount(account.id);
      const key = await ops.createKey({ account_id: account.id, mode: 'test', name: 'bench' });
      gatewayHeaders = { authorization: `Bearer ${key.secret}` };
      const context = identityContext({ account_id: account.id, key_id: key.id, mode: 'test', scopes: key.scopes });
      let signed = 0;
      directHeaders = () => {
        const requestId = `bench-${process.pid}-${++signed}`;
        const request = { method: 'GET', url: PATH, requestId };
        return { ...identityHeaders(context, request, stack.env.INTERNAL_TOKEN), 'x-request-id': requestId };
      };
      directUrl = `${upstream === 'stub' ? stub.url : stack.url('sessions')}${PATH}`;
      const viaGateway = await getOnce(`${customGateway?.url ?? stack.gatewayUrl}${PATH}`, gatewayHeaders);
      const direct = await getOnce(directUrl, directHeaders);
      if (viaGateway.status !== 200 || direct.status !== 200)
        throw new Error(
          `warm-up answered gateway ${viaGateway.status} ${viaGateway.text.slice(0, 200)} / direct ${direct.status} ${direct.text.slice(0, 200)}`,
        );
      responseBytes = Buffer.byteLength(direct.text);
      break;
    } catch (error) {
      customGateway?.stop();
      await stack?.stop();
      stub?.stop();
      customGateway = undefined;
      stack = undefined;
      stub = undefined;
      attempts++;
      // A start can fail for a passing reason (a rebuild of dist/ under way): one more try before falling back.
      if (attempts < 2) {
        log(`start failed (${error.message.split('\n')[0]}); retrying once`);
        continue;
      }
      if (upstream !== 'sessions' || args.upstream === 'sessions') throw error;
      fallbackReason = `the sessions service was not usable (${error.message.split('\n')[0]})`;
      log(`${fallbackReason}; falling back to the stub upstream`);
      upstream = 'stub';
    }
  }

  const gatewayUrl = `${customGateway?.url ?? stack.gatewayUrl}${PATH}`;
  const results = {};
  const best = (key, candidate, better) => {
    if (!results[key] || better(candidate, results[key])) results[key] = candidate;
  };
  try {
    const pidOf = (name) => stack.running.get(name)?.process.pid;
    const upstreamPids = () => [upstream === 'stub' ? stub.pid : pidOf('sessions')];
    const infraPids = { redis: () => pidsByName('redis-server'), postgres: () => benchBackends(stack.env.DATABASE_URL) };
    const gatewayPids = {
      gateway: () => [customGateway?.pid ?? pidOf('gateway')],
      upstream: upstreamPids,
      keys: () => [pidOf('keys')],
    };
    const moreRps = (a, b) => a.rps > b.rps;
    const lowerP50 = (a, b) => a.p50 < b.p50;
    // Direct and gateway runs alternate, and the best of each is kept, so that a burst of other work on
    // the machine during one run does not decide the comparison.
    for (let round = 1; round <= REPEAT; round++) {
      log(`round ${round}/${REPEAT}: throughput (${CONNECTIONS} connections, ${DURATION_S} s each)`);
      best(
        'directLoad',
        await withCpu({ upstream: upstreamPids, ...infraPids }, () => throughput(directUrl, directHeaders)),
        moreRps,
      );
      best('gatewayLoad', await withCpu({ ...gatewayPids, ...infraPids }, () => throughput(gatewayUrl, gatewayHeaders)), moreRps);
      log(`round ${round}/${REPEAT}: latency (1 connection, up to ${LATENCY_MAX_REQUESTS} requests or ${DURATION_S} s each)`);
      best('directSeq', await latency(directUrl, directHeaders), lowerP50);
      best('gatewaySeq', await latency(gatewayUrl, gatewayHeaders), lowerP50);
    }
  } finally {
    customGateway?.stop();
    await stack.stop();
    stub?.stop();
  }

  const { directLoad: dl, gatewayLoad: gl, directSeq: ds, gatewaySeq: gs } = results;
  const ratio = gl.rps / dl.rps;
  const overheadP50 = gs.p50 - ds.p50;
  const meetsLatency = overheadP50 < 1;
  const meetsThroughput = ratio >= 0.5;
  const upstreamLabel =
    upstream === 'sessions'
      ? 'real sessions service, `GET /v1/verification-sessions?limit=1` (PostgreSQL query)'
      : 'stub HTTP server in its own process answering a fixed JSON list';

  const table = [
    '| measurement | direct | through gateway | gateway cost |',
    '| --- | ---: | ---: | ---: |',
    `| throughput, ${CONNECTIONS} connections (req/s) | ${dl.rps.toFixed(0)} | ${gl.rps.toFixed(0)} | ratio ${ratio.toFixed(2)} |`,
    `| p50 under load (ms, autocannon, 1 ms resolution) | ${dl.p50} | ${gl.p50} | ${signed(String(gl.p50 - dl.p50))} |`,
    `| p99 under load (ms, autocannon, 1 ms resolution) | ${dl.p99} | ${gl.p99} | ${signed(String(gl.p99 - dl.p99))} |`,
    `| p50, 1 connection sequential (ms) | ${ms(ds.p50)} | ${ms(gs.p50)} | ${signed(ms(overheadP50))} |`,
    `| p90, 1 connection sequential (ms) | ${ms(ds.p90)} | ${ms(gs.p90)} | ${signed(ms(gs.p90 - ds.p90))} |`,
    `| p99, 1 connection sequential (ms) | ${ms(ds.p99)} | ${ms(gs.p99)} | ${signed(ms(gs.p99 - ds.p99))} |`,
    `| requests (load / sequential) | ${dl.total} / ${ds.n} | ${gl.total} / ${gs.n} | |`,
    `| non-2xx or errors | ${dl.non2xx + dl.errors + ds.failures} | ${gl.non2xx + gl.errors + gs.failures} | |`,
  ].join('\n');
  const cpuNames = ['load generator', 'gateway', 'upstream', 'keys', 'redis', 'postgres'];
  const benchCpu = (r) => Object.values(r.cpuPerRequestUs).reduce((a, b) => a + (b ?? 0), 0);
  // On a machine shared with other work the measured ratio depends on that work; the CPU each request
  // costs the benchmark's own processes does not, and predicts the ratio on a quiet machine.
  const cpuRatio = benchCpu(dl) / benchCpu(gl);
  const us = (v) => (v === null || v === undefined ? '-' : v.toFixed(0));
  const pct = (v) => (v === null || v === undefined ? '-' : `${(v * 100).toFixed(0)} %`);
  const cpuTable = [
    '| CPU per request during the throughput run (µs) | direct | through gateway |',
    '| --- | ---: | ---: |',
    ...cpuNames.map((n) => `| ${n} | ${us(dl.cpuPerRequestUs[n])} | ${us(gl.cpuPerRequestUs[n])} |`),
    `| all benchmark processes | ${us(benchCpu(dl))} | ${us(benchCpu(gl))} |`,
    `| machine busy (both cores) | ${pct(dl.machineBusyShare)} | ${pct(gl.machineBusyShare)} |`,
    `| of which processes outside the benchmark | ${pct(dl.otherCpuShare)} | ${pct(gl.otherCpuShare)} |`,
  ].join('\n');
  const verdict = [
    `- p50 cost of the gateway (sequential): ${ms(overheadP50)} ms: ${meetsLatency ? 'meets' : 'MISSES'} the target (< 1 ms).`,
    `- throughput kept: ${(ratio * 100).toFixed(0)} % of direct: ${meetsThroughput ? 'meets' : 'MISSES'} the target (>= 50 %).`,
    `- CPU-normalised ratio (direct CPU per request / gateway-path CPU per request, all benchmark processes): ${cpuRatio.toFixed(2)}${cpuRatio >= 0.5 ? '' : ' (below 0.5)'}; processes outside the benchmark used ${pct(gl.otherCpuShare)} of the machine during the gateway run.`,
    `- Response body: ${responseBytes} bytes.`,
  ].join('\n');

  const report = `# Gateway benchmark

Produced by \`node bench/gateway/run.mjs\` (root script \`pnpm bench:gateway\`) on ${new Date().toISOString().slice(0, 10)}.

- Machine: ${machine()}. Load generator, gateway, keys, upstream, PostgreSQL, RabbitMQ and Redis all share these cores; loopback only.
- Request: authenticated \`GET ${PATH}\` with a test key (gateway: key resolution cached, Redis token bucket with the limit raised to 1,000,000/s, scope check, signed identity headers, proxy); direct: the same request to the upstream with the identity headers the gateway would add.
- Upstream: ${upstreamLabel}.${fallbackReason ? ` Fell back to the stub because ${fallbackReason}.` : ''}
- Throughput: autocannon, ${CONNECTIONS} keep-alive connections, ${DURATION_S} s per target. Sequential latency: one keep-alive connection, up to ${LATENCY_MAX_REQUESTS} requests or ${DURATION_S} s per target, after 200 warm-up requests, timed with \`process.hrtime\`. ${REPEAT} alternating rounds; the best run of each kind is shown (highest throughput, lowest p50).
- \`LOG_LEVEL=warn\`, \`NODE_ENV=production\`.

${table}

${cpuTable}

Target: the gateway costs under 1 ms at p50 and keeps at least half of the direct throughput.
Where the gateway's time goes and what to change: \`bench/gateway/README.md\`.

${verdict}
`;

  process.stdout.write(`\n${table}\n\n${cpuTable}\n\n${verdict}\n\nMachine: ${machine()}\nUpstream: ${upstreamLabel}\n`);
  reportResult({
    connections: CONNECTIONS,
    gateway: { rps: gl.rps, p50: gl.p50, p99: gl.p99 },
    direct: { rps: dl.rps, p50: dl.p50, p99: dl.p99 },
    sequential: { gatewayP50: gs.p50, gatewayP99: gs.p99, directP50: ds.p50, directP99: ds.p99 },
  });
  if (!args['no-write'] && !args['gateway-main']) {
    // Formatted like the rest of the repository, so `pnpm format:check` stays green.
    const file = path.join(ROOT, 'docs', 'gateway-bench.md');
    const prettier = require('prettier');
    const options = (await prettier.resolveConfig(file)) ?? {};
    writeFileSync(file, await prettier.format(report, { ...options, parser: 'markdown' }));
    log('figures written to docs/gateway-bench.md');
  }
  if (args.profile) log(`gateway CPU profile written to .run/bench-profile/ (open in Chrome DevTools or speedscope)`);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`[bench] failed: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
