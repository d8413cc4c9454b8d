#!/usr/bin/env node
// Sessions benchmark: `node bench/sessions/run.mjs` (after `pnpm exec turbo run build`).
// Starts its own stack (keys, sessions, gateway) on a database of its own (dropped at the end), through the
// gateway, with the per-account rate limit raised (RATE_LIMIT_PER_SECOND / RATE_LIMIT_BURST) because
// the default 20/s would cap the measurement at the limiter. Prints the figures and writes them to
// docs/sessions.md between the bench markers. BENCH_SECONDS (default 10) sets each run's length.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileWindows } from '../profile/windows.mjs';
import { reportResult, writesDocs } from '../report/result.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const autocannon = require('autocannon');
const testkit = require(path.join(ROOT, 'packages/testkit/dist/index.js'));
const kit = require(path.join(ROOT, 'packages/kit/dist/index.js'));

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Connections of the max-throughput scenarios (the load report varies it). */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DOC = path.join(ROOT, 'docs', 'sessions.md');

function run(options) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
    instance.on('error', reject);
  });
}

function summary(name, result) {
  const ok = result['2xx'];
  const non2xx = result.non2xx + result.errors + result.timeouts;
  return {
    name,
    rps: Math.round(ok / (result.duration || SECONDS)),
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok,
    failed: non2xx,
  };
}

async function main() {
  const loadBefore = os.loadavg()[0].toFixed(1);
  const stack = await testkit.Stack.start({
    database: 'idv_bench_sessions',
    services: ['keys', 'sessions', 'gateway'],
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000' },
  });
  for (const name of testkit.STACK_ENV_NAMES) if (stack.env[name] !== undefined) process.env[name] = stack.env[name];
  process.env.GATEWAY_URL = stack.gatewayUrl;
  process.env.KEYS_URL = stack.url('keys');
  process.env.SESSIONS_URL = stack.url('sessions');
  process.env.WEBHOOKS_URL = stack.url('webhooks');
  process.env.FLOW_URL = stack.url('flow-runner');

  const results = [];
  // Each scenario's window for the profiler (bench/profile); BENCH_SCENARIOS runs only the named ones.
  const windows = profileWindows({ gateway: stack.gatewayUrl, sessions: stack.url('sessions'), keys: stack.url('keys') });
  const answered = (result) => result['2xx'] + result.non2xx;
  const scenario = async (key, name, options) => {
    const result = await windows.measure(key, () => run(options), answered);
    if (result) results.push(summary(name, result));
  };
  try {
    const tenant = await testkit.buildTenant({ modes: ['test'] });
    const url = `${stack.gatewayUrl}/v1/verification-sessions`;
    const headers = { authorization: `Bearer ${tenant.testKey}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ project_id: tenant.project.id, external_ref: 'bench' });
    let counter = 0;
    const withKey = [
      {
        method: 'POST',
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': `bench-${process.pid}-${++counter}` } }),
      },
    ];

    process.stdout.write('warming up…\n');
    await run({ url, method: 'POST', headers, body, connections: 20, duration: 3 });

    process.stdout.write(`creates, no Idempotency-Key (${SECONDS} s, ${CONNECTIONS} connections)…\n`);
    await scenario('create', 'create (no Idempotency-Key), max throughput', {
      url,
      method: 'POST',
      headers,
      body,
      connections: CONNECTIONS,
      duration: SECONDS,
    });

    process.stdout.write(`creates, unique Idempotency-Key per request (${SECONDS} s, ${CONNECTIONS} connections)…\n`);
    await scenario('create-key', 'create (Idempotency-Key), max throughput', {
      url,
      method: 'POST',
      headers,
      body,
      connections: CONNECTIONS,
      duration: SECONDS,
      requests: withKey,
    });

    // The same create straight to the sessions service with the identity headers the gateway would
    // sign: separates the sessions service's own cost from the gateway's (auth, Redis limiter, proxy).
    const identity = { account_id: tenant.account.id, key_id: tenant.testKeyId, mode: 'test', scopes: ['sessions:write'] };
    // A signed identity is good for one request: each request is signed as the gateway would.
    const context = kit.identityContext(identity);
    let signed = 0;
    const direct = {
      url: `${stack.url('sessions')}/v1/verification-sessions`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      requests: [
        {
          setupRequest: (req) => {
            const requestId = `bench-${process.pid}-${++signed}`;
            const request = { method: 'POST', url: '/v1/verification-sessions', requestId };
            const signature = kit.identityHeaders(context, request, stack.env.INTERNAL_TOKEN);
            return { ...req, headers: { ...req.headers, ...signature, 'x-request-id': requestId } };
          },
        },
      ],
    };
    process.stdout.write(`creates straight to the sessions service, no gateway (${SECONDS} s, ${CONNECTIONS} connections)…\n`);
    await scenario('create-direct', 'create (no Idempotency-Key), sessions service alone, no gateway', {
      ...direct,
      connections: CONNECTIONS,
      duration: SECONDS,
    });

    process.stdout.write(`creates at a fixed 200/s (${SECONDS} s)…\n`);
    await scenario('create-200', 'create at 200/s (no Idempotency-Key)', {
      url,
      method: 'POST',
      headers,
      body,
      connections: 20,
      overallRate: 200,
      duration: SECONDS,
    });
    await scenario('create-key-200', 'create at 200/s (Idempotency-Key)', {
      url,
      method: 'POST',
      headers,
      body,
      connections: 20,
      overallRate: 200,
      duration: SECONDS,
      requests: withKey,
    });

    const created = await (await fetch(url, { method: 'POST', headers, body })).json();
    process.stdout.write(`GET one session (${SECONDS} s, ${CONNECTIONS} connections)…\n`);
    await scenario('get-one', 'GET /v1/verification-sessions/{id}, max throughput', {
      url: `${url}/${created.id}`,
      headers: { authorization: headers.authorization },
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    process.stdout.write(`GET list, 25 per page (${SECONDS} s, ${CONNECTIONS} connections)…\n`);
    await scenario('list', 'GET /v1/verification-sessions (25 per page), max throughput', {
      url,
      headers: { authorization: headers.authorization },
      connections: CONNECTIONS,
      duration: SECONDS,
    });
  } finally {
    await stack.stop();
  }

  const loadAfter = os.loadavg()[0].toFixed(1);
  const cpu = os.cpus();
  const machine = `${cpu.length} × ${cpu[0]?.model ?? 'CPU'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
  const table = [
    '| scenario | req/s (2xx) | p50 ms | p99 ms | 2xx | non-2xx/errors |',
    '|---|---|---|---|---|---|',
    ...results.map((r) => `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.ok} | ${r.failed} |`),
  ].join('\n');
  const block = [
    '<!-- bench:start -->',
    `Measured by \`node bench/sessions/run.mjs\` on ${machine}; gateway, keys, sessions, PostgreSQL, RabbitMQ and Redis`,
    `all on the same machine, ${SECONDS} s per scenario, test mode, through the gateway with its rate limit raised`,
    '(`RATE_LIMIT_PER_SECOND=1000000`, `RATE_LIMIT_BURST=1000000`) and `LOG_LEVEL=warn`.',
    `Machine load average (1 min) before/after: ${loadBefore}/${loadAfter}; anything else running on the machine`,
    'shares its two cores, so compare runs only at similar load.',
    '',
    table,
    '<!-- bench:end -->',
  ].join('\n');
  process.stdout.write(`\n${table}\n`);
  reportResult({ connections: CONNECTIONS, seconds: SECONDS, results });
  if (!writesDocs()) return;
  const doc = readFileSync(DOC, 'utf8');
  const updated = doc.replace(/<!-- bench:start -->[\s\S]*<!-- bench:end -->/, block);
  writeFileSync(DOC, updated === doc && !doc.includes('<!-- bench:start -->') ? `${doc}\n${block}\n` : updated);
  process.stdout.write(`figures written to ${path.relative(ROOT, DOC)}\n`);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  },
);
