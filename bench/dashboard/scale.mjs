#!/usr/bin/env node
// The dashboard at scale: `node bench/dashboard/scale.mjs` (after `pnpm exec turbo run build`).
// Starts its own stack (keys, sessions, flow-runner, webhooks, dashboard) on the database `idv_bench_scale`, gives
// one approved account BENCH_SESSIONS (default 1,000,000) sessions over the last year (seed-sessions.sql: 90% live,
// statuses and reason codes in a busy integration's proportions) and five delivery attempts for each (5,000,000 by
// default, on one endpoint), then has its owner open the sessions list under each filter and session pages,
// BENCH_REQUESTS (default 200) of each kind, BENCH_CONCURRENCY (default 4) at a time. Prints the server time as the
// client sees it on loopback (p50 / p95 / max) per kind, with the machine's yardstick. Then "retry the failed deliveries"
// of a second endpoint (a receiver of this bench on 127.0.0.1) whose last hour holds BENCH_RETRY_EVENTS (default
// 2,000) dead events: how long the action takes to start, and how many deliveries a second it makes until every one
// is sent, at WEBHOOKS_RETRY_PER_SECOND = BENCH_RETRY_PER_SECOND (default 200; the service's default is 10, to spare
// the receiver). Seeding takes a few minutes.
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { machineReference } from '../machine-reference.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const testkit = require(path.join(ROOT, 'packages/testkit/dist/index.js'));
const { InternalClient } = require(path.join(ROOT, 'packages/contracts/dist/index.js'));
const { Agent, request } = require('undici');
const { Client } = require('pg');

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1_000_000);
const ATTEMPTS_PER_SESSION = 5;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const RETRY_EVENTS = Number(process.env.BENCH_RETRY_EVENTS ?? 2000);
const RETRY_PER_SECOND = Number(process.env.BENCH_RETRY_PER_SECOND ?? 200);
const CONFIG = {
  steps: [{ id: 'correo', type: 'otp_email' }],
  options: { webhookEvents: ['verification_session.completed'] },
};

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const elapsed = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Five attempts per session on one endpoint: its creation, then its decision's two events failing once each. */
const SEED_DELIVERIES = `
INSERT INTO deliveries (id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status, http_status,
                        duration_ms, error, failure_reason, created_at)
SELECT 'whd_' || upper(lpad(to_hex(s.n * 5 + k), 26, '0')), $1, $2, 'msg_bench_' || (s.n * 5 + k),
       'evt_' || left(encode(sha256(convert_to($1 || '|' || s.id || '|' || t.type, 'UTF8')), 'hex'), 32), t.type,
       CASE WHEN k IN (3, 5) THEN 2 ELSE 1 END,
       CASE WHEN k IN (2, 4) THEN 'failed' ELSE 'succeeded' END,
       CASE WHEN k IN (2, 4) THEN 503 ELSE 200 END, 40 + (s.n % 200), NULL,
       CASE WHEN k IN (2, 4) THEN 'http_status' END,
       s.created_at + k * interval '1 minute'
  FROM (SELECT id, created_at, status, ('x' || right(id, 12))::bit(48)::bigint AS n FROM sessions.sessions) AS s,
       generate_series(1, 5) AS k,
       LATERAL (SELECT CASE WHEN k = 1 THEN 'verification_session.created'
                            WHEN k IN (2, 3) THEN 'verification_session.completed'
                            WHEN s.status IN ('approved', 'rejected', 'expired', 'canceled') THEN 'verification_session.' || s.status
                            ELSE 'verification_session.created' END AS type) AS t`;

/** The retried endpoint's events: sessions' completions, as the webhooks service stores them (the session as sent). */
const SEED_RETRY_EVENTS = `
INSERT INTO events (id, account_id, type, data, options, occurred_at)
SELECT 'evt_' || lpad(to_hex(s.n), 32, '0'), $1, 'verification_session.completed',
       jsonb_build_object('id', s.id, 'object', 'verification_session', 'status', s.status, 'mode', s.mode,
                          'project_id', s.project_id, 'config_version', 'cfg_00000001',
                          'created_at', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
       '{"documentData": false, "verifiedChannels": false, "formData": false, "evidenceLinks": false}',
       now() - interval '40 minutes'
  FROM (SELECT id, status, mode, project_id, created_at, row_number() OVER (ORDER BY id) AS n
          FROM sessions.sessions WHERE status = 'approved' LIMIT $2) AS s`;

/** Each of those events' last attempt on the retried endpoint: dead (the receiver was down for its 8 attempts). */
const SEED_RETRY_DELIVERIES = `
INSERT INTO deliveries (id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status, http_status,
                        duration_ms, error, failure_reason, created_at)
SELECT 'whd_' || upper(lpad(to_hex(1000000000000 + n), 26, '0')), $1, $3, 'msg_retry_' || n,
       'evt_' || lpad(to_hex(n), 32, '0'), 'verification_session.completed', 8, 'dead', 503, 40, NULL, 'http_status',
       now() - interval '30 minutes'
  FROM generate_series(1, $2) AS n`;

async function main() {
  const stack = await testkit.Stack.start({
    database: 'idv_bench_scale',
    services: ['keys', 'sessions', 'flow-runner', 'webhooks', 'dashboard'],
    env: { LOG_LEVEL: 'warn', WEBHOOKS_RETRY_PER_SECOND: String(RETRY_PER_SECOND) },
  });
  const received = { count: 0 };
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.count += 1;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const base = stack.url('dashboard');
    const platform = new InternalClient({
      urls: { keys: stack.url('keys'), sessions: stack.url('sessions'), webhooks: stack.url('webhooks'), dashboard: base },
      internalToken: stack.env.INTERNAL_TOKEN,
    });
    const account = await platform.call('createAccount', {}, { name: 'Escala S.A.', email: 'escala@example.com' });
    await platform.call('approveAccount', { id: account.id });
    const project = await platform.call('createProject', {}, { account_id: account.id, name: 'Altas' });
    await platform.call('publishConfig', { id: project.id }, { mode: 'test', config: CONFIG });
    await platform.call('publishConfig', { id: project.id }, { mode: 'live', config: CONFIG });
    const key = await platform.call('createApiKey', {}, { account_id: account.id, mode: 'live', name: 'backend' });
    const endpoint = await platform.call(
      'createAccountWebhookEndpoint',
      { id: account.id },
      { url: 'https://receiver.example/hooks', events: ['verification_session.completed'] },
    );
    const retryEndpoint = await platform.call(
      'createAccountWebhookEndpoint',
      { id: account.id },
      { url: `http://127.0.0.1:${receiver.address().port}/hooks`, events: ['verification_session.completed'] },
    );
    const owner = { email: 'owner@escala.example', password: 'una frase de escala larga' };
    await platform.call('createAccountOwner', { id: account.id }, { ...owner, name: 'Owner' });

    const db = new Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      let since = performance.now();
      await db.query('SET search_path TO sessions');
      await db.query(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'seed-sessions.sql'), 'utf8'), [
        account.id,
        project.id,
        key.id,
        SESSIONS,
      ]);
      await db.query(
        `INSERT INTO session_reasons (account_id, mode, reason_code, created_at, session_id)
                      SELECT s.account_id, s.mode, code, s.created_at, s.id
                        FROM sessions s, jsonb_array_elements_text(s.result->'reason_codes') AS code
                       WHERE s.account_id = $1 AND jsonb_typeof(s.result->'reason_codes') = 'array'`,
        [account.id],
      );
      await db.query('VACUUM ANALYZE sessions');
      await db.query('VACUUM ANALYZE session_reasons');
      console.error(`seeded ${SESSIONS.toLocaleString('en-US')} sessions in ${elapsed(since)}`);
      since = performance.now();
      await db.query('SET search_path TO webhooks');
      await db.query(SEED_DELIVERIES, [account.id, endpoint.id]);
      await db.query('VACUUM ANALYZE deliveries');
      console.error(`seeded ${(SESSIONS * ATTEMPTS_PER_SESSION).toLocaleString('en-US')} delivery attempts in ${elapsed(since)}`);
      await db.query(SEED_RETRY_EVENTS, [account.id, RETRY_EVENTS]);
      await db.query(SEED_RETRY_DELIVERIES, [account.id, RETRY_EVENTS, retryEndpoint.id]);
    } finally {
      await db.end();
    }

    const agent = new Agent({ connections: CONCURRENCY * 2 });
    let cookies = [];
    const send = async (method, url, body) => {
      const started = performance.now();
      const response = await request(`${base}${url}`, {
        method,
        dispatcher: agent,
        headers: {
          cookie: cookies.join('; '),
          'x-forwarded-for': '10.77.0.1',
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(body ? { body } : {}),
      });
      const text = await response.body.text();
      for (const line of [].concat(response.headers['set-cookie'] ?? [])) {
        const pair = line.split(';')[0];
        const name = pair.split('=')[0];
        cookies = cookies.filter((cookie) => !cookie.startsWith(`${name}=`)).concat(pair.endsWith('=') ? [] : [pair]);
      }
      return { status: response.statusCode, text, ms: performance.now() - started };
    };
    const form = await send('GET', '/sign-in');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)[1];
    const signedIn = await send('POST', '/sign-in', new URLSearchParams({ _csrf: csrf, ...owner }).toString());
    if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);

    // Sessions spread over the year: the page of a random one, and the list's second page by its cursor.
    const randomSession = () =>
      `vs_${Math.floor(1 + Math.random() * SESSIONS)
        .toString(16)
        .toUpperCase()
        .padStart(26, '0')}`;
    const firstPage = await send('GET', '/sessions?status=rejected');
    const older = /href="(\/sessions\?[^"]*cursor=[^"]+)"/.exec(firstPage.text)?.[1]?.replace(/&amp;/g, '&');
    const kinds = [
      ['list, no filter', () => '/sessions'],
      ['list, status', () => '/sessions?status=abandoned'],
      ['list, status none match', () => '/sessions?status=pending'],
      ['list, reason code', () => '/sessions?reason=underage'],
      ['list, reason code none match', () => '/sessions?reason=face_mismatch'],
      ['list, project', () => `/sessions?project=${project.id}`],
      ['list, external ref', () => `/sessions?ref=cliente-${Math.floor(1 + Math.random() * SESSIONS)}`],
      ['list, a day 200 days ago', () => `/sessions?from=${day(200)}&to=${day(200)}`],
      ['list, second page (cursor)', () => older],
      ['session page (5 attempts)', () => `/sessions/${randomSession()}`],
    ];
    const samples = new Map();
    for (const [name, url] of kinds) {
      const times = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < REQUESTS) {
            next += 1;
            const answer = await send('GET', url());
            if (answer.status !== 200) throw new Error(`${url()} answered ${answer.status}`);
            times.push(answer.ms);
          }
        }),
      );
      samples.set(
        name,
        times.sort((a, b) => a - b),
      );
    }

    // Retry every failed delivery of the retried endpoint's last hour, as the owner's button does.
    const retryStarted = performance.now();
    const started = await platform.call(
      'startWebhookRetry',
      { id: account.id, endpoint_id: retryEndpoint.id },
      { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() },
    );
    const startMs = performance.now() - retryStarted;
    let retry = started;
    while (retry.state !== 'finished') {
      await new Promise((resolve) => setTimeout(resolve, 200));
      retry = await platform.call('getWebhookRetry', { id: account.id, retry_id: started.id });
    }
    const retrySeconds = (performance.now() - retryStarted) / 1000;
    await agent.close();

    const yardstick = await machineReference();
    console.log(
      `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} (Node ${process.version}); yardstick ${Math.round(yardstick).toLocaleString('en-US')} requests/s.`,
    );
    console.log(
      `One account with ${SESSIONS.toLocaleString('en-US')} sessions and ${(SESSIONS * ATTEMPTS_PER_SESSION).toLocaleString('en-US')} delivery attempts; ${REQUESTS} requests of each kind, ${CONCURRENCY} at a time.`,
    );
    console.log('');
    console.log('| page | p50 ms | p95 ms | max ms |');
    console.log('|---|---|---|---|');
    for (const [name, sorted] of samples) {
      console.log(
        `| ${name} | ${quantile(sorted, 0.5).toFixed(1)} | ${quantile(sorted, 0.95).toFixed(1)} | ${sorted.at(-1).toFixed(1)} |`,
      );
    }
    console.log('');
    console.log(
      `Retry of the failed deliveries of an hour (${started.total.toLocaleString('en-US')} dead events, among ${(SESSIONS * ATTEMPTS_PER_SESSION).toLocaleString('en-US')} attempts): started in ${startMs.toFixed(0)} ms; ${retry.done.toLocaleString('en-US')} sent (${retry.failed} failed) in ${retrySeconds.toFixed(1)} s = ${Math.round(retry.done / retrySeconds)} deliveries/s at a limit of ${RETRY_PER_SECOND}/s; the receiver got ${received.count.toLocaleString('en-US')}.`,
    );
  } finally {
    await stack.stop();
    receiver.close();
  }
}

/** The Argentine calendar day `daysAgo` days ago (YYYY-MM-DD). */
function day(daysAgo) {
  return new Date(Date.now() - 3 * 3_600_000 - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
