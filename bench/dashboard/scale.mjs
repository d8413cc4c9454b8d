#!/usr/bin/env node
// The dashboard at scale: `node bench/dashboard/scale.mjs` (after `pnpm exec turbo run build`).
// Starts its own stack (keys, sessions, flow-runner, webhooks, dashboard) on the database `idv_bench_scale`, gives
// one approved account BENCH_SESSIONS (default 1,000,000) sessions over the last year (seed-sessions.sql: 90% live,
// statuses and reason codes in a busy integration's proportions) and five delivery attempts for each (5,000,000 by
// default, on one endpoint), then has its owner open the sessions list under each filter and session pages,
// BENCH_REQUESTS (default 200) of each kind, BENCH_CONCURRENCY (default 4) at a time. Prints the server time as the
// client sees it on loopback (p50 / p95 / max) per kind, with the machine's yardstick. Seeding takes a few minutes.
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

async function main() {
  const stack = await testkit.Stack.start({
    database: 'idv_bench_scale',
    services: ['keys', 'sessions', 'flow-runner', 'webhooks', 'dashboard'],
    env: { LOG_LEVEL: 'warn' },
  });
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
      await db.query(`INSERT INTO session_reasons (account_id, mode, reason_code, created_at, session_id)
                      SELECT s.account_id, s.mode, code, s.created_at, s.id
                        FROM sessions s, jsonb_array_elements_text(s.result->'reason_codes') AS code
                       WHERE s.account_id = $1 AND jsonb_typeof(s.result->'reason_codes') = 'array'`, [account.id]);
      await db.query('VACUUM ANALYZE sessions');
      await db.query('VACUUM ANALYZE session_reasons');
      console.error(`seeded ${SESSIONS.toLocaleString('en-US')} sessions in ${elapsed(since)}`);
      since = performance.now();
      await db.query('SET search_path TO webhooks');
      await db.query(SEED_DELIVERIES, [account.id, endpoint.id]);
      await db.query('VACUUM ANALYZE deliveries');
      console.error(`seeded ${(SESSIONS * ATTEMPTS_PER_SESSION).toLocaleString('en-US')} delivery attempts in ${elapsed(since)}`);
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
      console.log(`| ${name} | ${quantile(sorted, 0.5).toFixed(1)} | ${quantile(sorted, 0.95).toFixed(1)} | ${sorted.at(-1).toFixed(1)} |`);
    }
  } finally {
    await stack.stop();
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
