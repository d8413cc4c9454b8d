#!/usr/bin/env node
// Dashboard benchmark: `node bench/dashboard/run.mjs` (after `pnpm exec turbo run build`).
// Starts its own stack (keys, sessions, webhooks, dashboard) on the database `idv_bench_dashboard`, makes
// BENCH_USERS (default 20) approved accounts, each with an owner, a project published to test and live and a
// key, signs every owner in, then has all of them click through the signed-in pages at once, BENCH_ROUNDS
// (default 6) times each, BENCH_THINK_MS (default 1000; 0: as fast as answers come) between clicks: home (with the go-live checklist), projects, the project's flow editor, its JSON view, its history, keys, usage (its chart of 12 months from one internal call).
// A first round (BENCH_WARMUP_ROUNDS, default 1) is not counted: it opens the services' database connections
// and compiles the pages' code, which a running dashboard did long before; its p95 is printed apart.
// Prints, per page, the bytes on the wire (headers and body; the stylesheet and the one script apart) and the
// server time as the client sees it on loopback (p50 / p95 / max), with the machine's yardstick.
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { machineReference } from '../machine-reference.mjs';
import { reportResult } from '../report/result.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const testkit = require(path.join(ROOT, 'packages/testkit/dist/index.js'));
const { InternalClient } = require(path.join(ROOT, 'packages/contracts/dist/index.js'));
const { Agent, request } = require('undici');

const USERS = Number(process.env.BENCH_USERS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
/** A person reads a page before the next click; 0 has every owner click as fast as answers come (saturation). */
const THINK_MS = Number(process.env.BENCH_THINK_MS ?? 1000);
const WARMUP_ROUNDS = Number(process.env.BENCH_WARMUP_ROUNDS ?? 1);
const CONFIG = {
  steps: [
    { id: 'datos', type: 'form', fields: [{ name: 'nombre', type: 'text', label: 'Nombre', required: true }] },
    { id: 'correo', type: 'otp_email' },
  ],
  options: { webhookEvents: ['verification_session.approved'] },
};

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function main() {
  const stack = await testkit.Stack.start({
    database: 'idv_bench_dashboard',
    services: ['keys', 'sessions', 'webhooks', 'dashboard'],
    env: { LOG_LEVEL: 'warn' },
  });
  try {
    const base = stack.url('dashboard');
    const platform = new InternalClient({
      urls: { keys: stack.url('keys'), sessions: stack.url('sessions'), dashboard: base },
      internalToken: stack.env.INTERNAL_TOKEN,
    });
    const agent = new Agent({ connections: USERS * 2 });
    const users = [];
    for (let i = 0; i < USERS; i++) {
      const account = await platform.call('createAccount', {}, { name: `Bench ${i} S.A.`, email: `bench${i}@example.com` });
      await platform.call('approveAccount', { id: account.id });
      const project = await platform.call('createProject', {}, { account_id: account.id, name: `Proyecto ${i}` });
      await platform.call('publishConfig', { id: project.id }, { mode: 'test', config: CONFIG });
      await platform.call('publishConfig', { id: project.id }, { mode: 'live', config: CONFIG });
      await platform.call('createApiKey', {}, { account_id: account.id, mode: 'test', name: 'backend' });
      const email = `owner-${i}-${account.id.slice(-6).toLowerCase()}@bench.example`;
      const password = `una frase de banco ${i} larga`;
      await platform.call('createAccountOwner', { id: account.id }, { email, name: `Owner ${i}`, password });
      users.push({ email, password, projectId: project.id, address: `10.9.${Math.floor(i / 250)}.${(i % 250) + 1}` });
    }

    // Each owner signs in as a browser would: the sign-in page's CSRF token and cookies, then the form.
    const send = async (user, method, url, body) => {
      const started = performance.now();
      const response = await request(`${base}${url}`, {
        method,
        dispatcher: agent,
        headers: {
          cookie: user.cookies.join('; '),
          'x-forwarded-for': user.address,
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(body ? { body } : {}),
      });
      const text = await response.body.text();
      const ms = performance.now() - started;
      const headerBytes = Object.entries(response.headers).reduce(
        (sum, [name, value]) => sum + name.length + String(value).length + 4,
        17,
      );
      for (const line of [].concat(response.headers['set-cookie'] ?? [])) {
        const pair = line.split(';')[0];
        const name = pair.split('=')[0];
        user.cookies = user.cookies.filter((cookie) => !cookie.startsWith(`${name}=`)).concat(pair.endsWith('=') ? [] : [pair]);
      }
      return { status: response.statusCode, text, ms, bytes: headerBytes + Buffer.byteLength(text) };
    };
    for (const user of users) {
      user.cookies = [];
      const form = await send(user, 'GET', '/sign-in');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)[1];
      const body = new URLSearchParams({ _csrf: csrf, email: user.email, password: user.password }).toString();
      const signedIn = await send(user, 'POST', '/sign-in', body);
      if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
    }

    const pages = (user) => [
      ['home', '/home'],
      ['projects', '/projects'],
      ['flow editor', `/projects/${user.projectId}`],
      ['flow JSON', `/projects/${user.projectId}/json`],
      ['history', `/projects/${user.projectId}/history`],
      ['keys', '/keys'],
      ['usage', '/usage'],
    ];
    const samples = new Map();
    const warmup = [];
    let started = performance.now();
    await Promise.all(
      users.map(async (user) => {
        for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
          if (round === WARMUP_ROUNDS && user === users[0]) started = performance.now();
          for (const [name, url] of pages(user)) {
            // Spread the first clicks over the think time, so that the owners do not click in step.
            await new Promise((resolve) => setTimeout(resolve, THINK_MS * (round === 0 && name === 'home' ? Math.random() : 1)));
            const answer = await send(user, 'GET', url);
            if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
            if (round < WARMUP_ROUNDS) {
              warmup.push(answer.ms);
              continue;
            }
            const entry = samples.get(name) ?? { ms: [], bytes: 0 };
            entry.ms.push(answer.ms);
            entry.bytes = Math.max(entry.bytes, answer.bytes);
            samples.set(name, entry);
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const stylesheet = await send(users[0], 'GET', '/assets/dashboard.css');
    const script = await send(users[0], 'GET', '/assets/copy.js');
    const editorBundle = await send(users[0], 'GET', '/assets/editor.js');
    await agent.close();

    const yardstick = await machineReference();
    const all = [...samples.values()].flatMap((entry) => entry.ms).sort((a, b) => a - b);
    console.log(
      `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} (Node ${process.version}); yardstick ${Math.round(yardstick).toLocaleString('en-US')} requests/s.`,
    );
    console.log(
      `${USERS} signed-in owners at once, ${ROUNDS} rounds of ${pages(users[0]).length} pages each, ${THINK_MS} ms between clicks: ${all.length} pages in ${seconds.toFixed(1)} s (${Math.round(all.length / seconds)} pages/s).`,
    );
    console.log('');
    console.log('| page | bytes on the wire (largest) | with the stylesheet | p50 ms | p95 ms | max ms |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, entry] of samples) {
      const sorted = entry.ms.sort((a, b) => a - b);
      console.log(
        `| ${name} | ${entry.bytes.toLocaleString('en-US')} | ${(entry.bytes + stylesheet.bytes).toLocaleString('en-US')} | ${quantile(sorted, 0.5).toFixed(1)} | ${quantile(sorted, 0.95).toFixed(1)} | ${sorted.at(-1).toFixed(1)} |`,
      );
    }
    console.log(
      `| all pages | | | ${quantile(all, 0.5).toFixed(1)} | ${quantile(all, 0.95).toFixed(1)} | ${all.at(-1).toFixed(1)} |`,
    );
    reportResult({
      users: USERS,
      rounds: ROUNDS,
      thinkMs: THINK_MS,
      pages: all.length,
      seconds,
      pagesPerSecond: all.length / seconds,
      p50: quantile(all, 0.5),
      p95: quantile(all, 0.95),
      max: all.at(-1),
      yardstick,
    });
    if (warmup.length > 0) {
      const first = warmup.sort((a, b) => a - b);
      console.log(
        `Not counted above: the ${WARMUP_ROUNDS} warm-up round(s), ${first.length} pages (new database connections, first compilation): p50 ${quantile(first, 0.5).toFixed(1)} ms, p95 ${quantile(first, 0.95).toFixed(1)} ms, max ${first.at(-1).toFixed(1)} ms.`,
      );
    }
    console.log('');
    console.log(
      `Stylesheet ${stylesheet.bytes.toLocaleString('en-US')} bytes, copy script ${script.bytes.toLocaleString('en-US')} bytes, editor bundle ${editorBundle.bytes.toLocaleString('en-US')} bytes (each cached an hour).`,
    );
    const editor = samples.get('flow editor');
    console.log(
      `The flow editor with the stylesheet and its bundle: ${(editor.bytes + stylesheet.bytes + editorBundle.bytes).toLocaleString('en-US')} bytes (target under 250 KB).`,
    );
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
