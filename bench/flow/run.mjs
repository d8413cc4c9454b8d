#!/usr/bin/env node
// Flow-runner benchmark: `node bench/flow/run.mjs` (after `pnpm exec turbo run build`).
// Starts its own stack (keys, sessions, webhooks, flow-runner, gateway) on the database
// `idv_bench_flow`, with the flow-runner sending e-mail codes to a local SMTP sink (smtp-sink.mjs, its own process).
// Live sessions are created first through the gateway (rate limit raised; not timed); then
// BENCH_PERSONS (default 30) scripted persons, each with its own cookie jar, complete BENCH_FLOWS
// (default 1500) flows over HTTP: open link → consent → choose e-mail → send code → code (read from
// the SMTP sink) → form → approved. Prints complete flows/s and the p50/p99 of each step submission,
// and writes them to docs/flow-runner.md between the bench markers. BENCH_READERS (default 0) more
// persons go through a DNI document step at the same time, uploading a genuine card's three photos
// (bench/verification's corpus) again and again, so that the flow pages are measured while documents are being read (their
// figures go between the bench:flow-reading markers instead). BENCH_FACES (default 0) more persons go
// through a face_liveness step the same way, sending the live face's frames photographed again for each
// challenge, so that the pages are measured while faces are judged (bench:flow-faces markers; both may
// run at once, then bench:flow-verification). BENCH_NODE_OPTIONS passes extra
// NODE_OPTIONS to the flow-runner only (e.g. `--require` of a profiler).
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineReference } from '../machine-reference.mjs';
import { profileWindows } from '../profile/windows.mjs';
import { reportResult, writesDocs } from '../report/result.mjs';
import { verificationCorpus } from '../verification/corpus.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const testkit = require(path.join(ROOT, 'packages/testkit/dist/index.js'));
const { Agent, FormData, request } = require('undici');

const PERSONS = Number(process.env.BENCH_PERSONS ?? 30);
const FLOWS = Number(process.env.BENCH_FLOWS ?? 1500);
const READERS = Number(process.env.BENCH_READERS ?? 0);
const FACES = Number(process.env.BENCH_FACES ?? 0);
/** The side loads' genuine card and face frames (bench/verification's corpus, cached under bench/results). */
const SIDE_LOAD_SEED = 4343;
const FACE_CONFIG = { steps: [{ id: 'face', type: 'face_liveness' }], options: { webhookEvents: [] } };
const DOCUMENT_CONFIG = { steps: [{ id: 'doc', type: 'document_ar', documents: ['dni'] }], options: { webhookEvents: [] } };
const DOC = path.join(ROOT, 'docs', 'flow-runner.md');

const CONFIG = {
  steps: [
    {
      id: 'contact',
      type: 'choice',
      min: 1,
      options: [
        { id: 'mail', type: 'otp_email' },
        { id: 'phone', type: 'otp_whatsapp' },
      ],
    },
    { id: 'extra', type: 'form', fields: [{ name: 'occupation', type: 'text', label: 'Ocupación', required: true }] },
  ],
  options: { verifiedChannels: true, formData: true, webhookEvents: [] },
};

/**
 * The SMTP sink, in a process of its own (as a mail server would be, and so that the load generator's
 * busy event loop does not slow its answers): it reports the code of each mail, and this process
 * resolves the waiter of each recipient.
 */
async function startSink() {
  const waiters = new Map();
  const codes = new Map();
  let received = 0;
  const child = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'smtp-sink.mjs'), [], { stdio: 'inherit' });
  const port = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message) => resolve(message.port));
  });
  child.on('message', (message) => {
    if (!message.mail) return;
    received++;
    const { to, code } = message.mail;
    for (const address of to) {
      const waiter = waiters.get(address);
      if (waiter) {
        waiters.delete(address);
        waiter(code);
      } else codes.set(address, code);
    }
  });
  return {
    port,
    received: () => received,
    codeFor(address) {
      const code = codes.get(address);
      if (code) {
        codes.delete(address);
        return Promise.resolve(code);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${address}`)), 10_000);
        waiters.set(address, (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

const agent = new Agent({ connections: PERSONS * 2, pipelining: 1 });
const latencies = new Map(); // step → ms[]

function record(step, ms) {
  if (!latencies.has(step)) latencies.set(step, []);
  latencies.get(step).push(ms);
}

/** One scripted person: its own cookie jar, forms submitted as a browser without JavaScript would. */
class Person {
  constructor(origin) {
    this.origin = origin;
    this.cookies = new Map();
    this.page = '';
  }
  async fetch(method, url, form) {
    const headers = { 'accept-language': 'es-AR', 'user-agent': 'bench-person' };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body;
    if (form) {
      body = new URLSearchParams(form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await request(url.startsWith('http') ? url : this.origin + url, {
      method,
      headers,
      body,
      dispatcher: agent,
    });
    const text = await response.body.text();
    const setCookie = response.headers['set-cookie'];
    for (const line of [setCookie ?? []].flat()) {
      const [pair] = line.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return { status: response.statusCode, location: response.headers.location, text };
  }
  async get(url) {
    const res = await this.fetch('GET', url);
    if (res.status === 303) return this.get(res.location);
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
    this.page = res.text;
    return res;
  }
  /** A photo sent as a browser without JavaScript sends it: one multipart form per side. */
  upload(step, bytes) {
    return this.postMultipart(step, ['_csrf', 'step', 'side'], (form) => {
      form.set('action', 'upload');
      form.set('capture', new Blob([bytes], { type: 'image/jpeg' }), 'foto.jpg');
    });
  }
  /** A face attempt's frames as the camera page posts them: multipart `frame` files, their times, the nonce. */
  uploadFrames(step, nonce, frames) {
    return this.postMultipart(step, ['_csrf', 'step'], (form) => {
      form.set('action', 'frames');
      form.set('nonce', nonce);
      form.set('at_ms', frames.map((frame) => frame.atMs).join(','));
      frames.forEach((frame, index) =>
        form.append('frame', new Blob([frame.bytes], { type: 'image/jpeg' }), `frame-${index}.jpg`),
      );
    });
  }
  /** The page's multipart form: its hidden `fields` copied, the rest filled by `fill`, timed as `step`. */
  async postMultipart(step, fields, fill) {
    const form = new FormData();
    for (const name of fields) form.set(name, new RegExp(`name="${name}" value="([^"]+)"`).exec(this.page)?.[1] ?? '');
    fill(form);
    const action = /<form method="post" action="([^"]+)"/.exec(this.page)?.[1];
    const headers = { 'accept-language': 'es-AR', cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    const started = performance.now();
    const response = await request(this.origin + action, { method: 'POST', body: form, headers, dispatcher: agent });
    const text = await response.body.text();
    record(step, performance.now() - started);
    if (response.statusCode === 303) return this.get(response.headers.location);
    if (response.statusCode !== 200) throw new Error(`${step}: ${response.statusCode} ${text.slice(0, 300)}`);
    this.page = text;
  }
  /** Reloads the progress page as its meta refresh would, each view timed. */
  async awaitReading(url) {
    for (let polls = 0; polls < 240; polls++) {
      if (!this.page.includes('http-equiv="refresh"')) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
      const started = performance.now();
      await this.get(url);
      record('progress page', performance.now() - started);
    }
    throw new Error('the reading did not end in 2 minutes');
  }
  async submit(step, fields) {
    const action = /<form method="post" action="([^"]+)"/.exec(this.page)?.[1];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(this.page)?.[1];
    const stepId = /name="step" value="([^"]+)"/.exec(this.page)?.[1];
    const started = performance.now();
    const res = await this.fetch('POST', action, { _csrf: csrf, step: stepId, ...fields });
    record(step, performance.now() - started);
    if (res.status === 303) return this.get(res.location);
    if (res.status !== 200) throw new Error(`POST ${step}: ${res.status} ${res.text.slice(0, 300)}`);
    this.page = res.text;
    return res;
  }
}

/** process_cpu_seconds_total of each service, from its /metrics. */
async function cpuSeconds(stack) {
  const out = {};
  for (const name of ['flow-runner', 'sessions', 'gateway']) {
    try {
      const res = await request(`${stack.url(name)}/metrics`);
      const text = await res.body.text();
      const line = text.split('\n').find((l) => l.startsWith('process_cpu_seconds_total'));
      if (line) out[name] = Number(line.split(' ').pop());
    } catch {
      // not running
    }
  }
  return out;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  const yardstick = await machineReference();
  const sink = await startSink();
  const stack = await testkit.Stack.start({
    database: 'idv_bench_flow',
    env: {
      LOG_LEVEL: 'warn',
      TIME_SCALE: '1',
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      // Every scripted person opens its links from 127.0.0.1: the per-address throttle would stop them.
      THROTTLE_LINK_OPENS_PER_SECOND: '1000000',
      THROTTLE_LINK_OPENS_BURST: '1000000',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(sink.port),
      SMTP_SECURE: 'false',
    },
    // BENCH_NODE_OPTIONS: extra NODE_OPTIONS for the flow-runner only (e.g. `--require` a profiler).
    ...(process.env.BENCH_NODE_OPTIONS
      ? { serviceEnv: { 'flow-runner': { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } } }
      : {}),
  });
  for (const name of testkit.STACK_ENV_NAMES) if (stack.env[name] !== undefined) process.env[name] = stack.env[name];
  try {
    const tenant = await testkit.buildTenant({ config: CONFIG, modes: ['live'], tokens: FLOWS + 10 });
    process.stdout.write(`creating ${FLOWS} live sessions (not timed)…\n`);
    const urls = [];
    let reserved = 0;
    const creators = Array.from({ length: 16 }, async () => {
      while (reserved < FLOWS) {
        reserved++;
        const res = await testkit.api('POST', '/v1/verification-sessions', {
          key: tenant.liveKey,
          body: { project_id: tenant.project.id },
        });
        if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
        urls.push(res.body.url);
      }
    });
    await Promise.all(creators);

    const flowUrl = stack.url('flow-runner');
    const documents = { done: 0, failed: 0, times: [] };
    let flowsDone = false;
    const sideCorpus = READERS > 0 || FACES > 0 ? await verificationCorpus({ seed: SIDE_LOAD_SEED, count: 1 }) : null;
    const readers = READERS > 0 ? startReaders(flowUrl, documents, () => flowsDone, sideCorpus) : null;
    const faces = { done: 0, failed: 0, times: [] };
    const facePersons = FACES > 0 ? startFacePersons(flowUrl, faces, () => flowsDone, sideCorpus) : null;
    const cpuBefore = await cpuSeconds(stack);
    let next = 0;
    let completed = 0;
    let failed = 0;
    const flowTimes = [];
    process.stdout.write(`running ${FLOWS} flows with ${PERSONS} concurrent persons…\n`);
    const started = performance.now();
    // The measured window for the profiler (bench/profile): the flows, counted when complete.
    const services = ['gateway', 'keys', 'sessions', 'webhooks', 'flow-runner'];
    const windows = profileWindows(Object.fromEntries(services.map((name) => [name, stack.url(name)])));
    const runFlows = () =>
      Promise.all(
        Array.from({ length: PERSONS }, async (_, worker) => {
          while (next < urls.length) {
            const index = next++;
            const url = urls[index];
            const person = new Person(flowUrl);
            const address = `bench-${worker}-${index}@example.com`;
            const flowStarted = performance.now();
            try {
              const open = performance.now();
              await person.get(url);
              record('open link', performance.now() - open);
              await person.submit('consent', { action: 'accept' });
              await person.submit('choice', { option: 'mail' });
              await person.submit('otp send', { action: 'send', destination: address });
              const code = await sink.codeFor(address);
              await person.submit('otp verify', { action: 'verify', code });
              const final = await person.submit('form', { occupation: 'Benchmark' });
              if (!final.text.includes('data-page="approved"')) throw new Error('flow did not end approved');
              completed++;
              flowTimes.push(performance.now() - flowStarted);
            } catch (error) {
              failed++;
              if (failed <= 5) process.stderr.write(`flow failed: ${error.message}\n`);
            }
          }
        }),
      );
    await windows.measure('flows', runFlows, () => completed);
    const seconds = (performance.now() - started) / 1000;
    flowsDone = true;
    await readers;
    await facePersons;
    const cpuAfter = await cpuSeconds(stack);
    const cpuPerFlow = Object.entries(cpuAfter)
      .map(([name, value]) => `${name} ${(((value - (cpuBefore[name] ?? 0)) * 1000) / Math.max(1, completed)).toFixed(1)}`)
      .join(', ');
    const rows = [...latencies].map(([step, values]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { step, n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    });
    const submissions = [...latencies]
      .filter(([step]) => !['open link', 'upload', 'face frames', 'progress page'].includes(step))
      .flatMap(([, v]) => v)
      .sort((a, b) => a - b);
    const flowSorted = flowTimes.sort((a, b) => a - b);
    const result = {
      flowsPerSecond: completed / seconds,
      completed,
      failed,
      seconds,
      p99Submission: percentile(submissions, 99),
      p50Flow: percentile(flowSorted, 50),
      mails: sink.received(),
    };

    const table = [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} (Node ${process.version}),`,
      `every service on this machine with PostgreSQL, RabbitMQ and Redis (load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')});`,
      `a bare node HTTP server answers ${Math.round(yardstick).toLocaleString('en-US')} requests/s over loopback here (16 connections, best second of three; \`bench/machine-reference.mjs\`, the yardstick between machines);`,
      `${PERSONS} concurrent persons, ${FLOWS} live flows`,
      `(consent → choice of e-mail → send code over SMTP to a local sink → code → one-field form → approved).`,
      ...(READERS > 0
        ? [
            `Meanwhile ${READERS} more persons went through a DNI document step again and again (front, back, angled front of a`,
            `genuine card of bench/verification's corpus, read by the flow-runner's worker pool of VERIFICATION_THREADS=${process.env.VERIFICATION_THREADS ?? 1}):`,
            `${documents.done} documents read (${documents.failed} failed), median ${percentile(
              documents.times.sort((a, b) => a - b),
              50,
            ).toFixed(0)} ms from the last upload to the verdict.`,
          ]
        : []),
      ...(FACES > 0
        ? [
            `Meanwhile ${FACES} more persons went through a face step again and again (the live face's six frames photographed`,
            `again for each challenge, judged by the flow-runner's face pool of FACE_THREADS=${process.env.FACE_THREADS ?? 2}):`,
            `${faces.done} attempts judged (${faces.failed} failed), median ${percentile(
              faces.times.sort((a, b) => a - b),
              50,
            ).toFixed(0)} ms from the frames' upload to the verdict page.`,
          ]
        : []),
      '',
      `- **${result.flowsPerSecond.toFixed(1)} complete flows/s** (${completed} completed, ${failed} failed, ${seconds.toFixed(1)} s; ${result.mails} mails)`,
      `- p99 of every step submission together: **${result.p99Submission.toFixed(1)} ms**; median time of a whole flow ${result.p50Flow.toFixed(0)} ms`,
      `- CPU time per completed flow (ms): ${cpuPerFlow}`,
      '',
      '| request | n | p50 ms | p99 ms |',
      '|---|---|---|---|',
      ...rows.map((r) => `| ${r.step} | ${r.n} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} |`),
    ].join('\n');
    process.stdout.write(`\n${table}\n`);
    reportResult({ persons: PERSONS, flows: FLOWS, yardstick, ...result, steps: rows });

    try {
      if (!writesDocs()) throw new Error('not asked to write docs');
      const doc = readFileSync(DOC, 'utf8');
      const marker =
        READERS > 0 && FACES > 0
          ? 'bench:flow-verification'
          : READERS > 0
            ? 'bench:flow-reading'
            : FACES > 0
              ? 'bench:flow-faces'
              : 'bench:flow';
      const begin = `<!-- ${marker}:begin -->`;
      const end = `<!-- ${marker}:end -->`;
      const a = doc.indexOf(begin);
      const b = doc.indexOf(end);
      if (a >= 0 && b > a) {
        writeFileSync(DOC, `${doc.slice(0, a + begin.length)}\n${table}\n${doc.slice(b)}`);
        process.stdout.write(`\nwritten to ${path.relative(ROOT, DOC)}\n`);
      }
    } catch {
      // no doc to update
    }
  } finally {
    await stack.stop();
    await sink.close();
    await agent.close();
  }
}

/**
 * `count` persons going through `config`'s flow again and again until the measured flows are done: each
 * opens a new live session, consents, and runs `journey`, which returns the time from its last upload
 * to the verdict; `tally` counts the flows that ended approved and those that did not.
 */
async function startBackgroundPersons(flowUrl, { config, count, tally, what }, done, journey) {
  const tenant = await testkit.buildTenant({ config, modes: ['live'], tokens: 10_000 });
  return Promise.all(
    Array.from({ length: count }, async () => {
      while (!done()) {
        try {
          const created = await testkit.api('POST', '/v1/verification-sessions', {
            key: tenant.liveKey,
            body: { project_id: tenant.project.id },
          });
          if (created.status !== 201) throw new Error(`create: ${created.status}`);
          const person = new Person(flowUrl);
          await person.get(created.body.url);
          await person.submit('consent', { action: 'accept' });
          const ms = await journey(person, `/s/${created.body.id}`);
          if (!person.page.includes('data-page="approved"')) throw new Error(`the ${what} flow did not end approved`);
          tally.done++;
          tally.times.push(ms);
        } catch (error) {
          tally.failed++;
          if (tally.failed <= 5) process.stderr.write(`${what} flow failed: ${error.message}\n`);
        }
      }
    }),
  );
}

/**
 * Persons reading documents: a genuine card's front, back and angled front (bench/verification's corpus: live
 * mode refuses the public test-mode samples), waiting on the progress page after each.
 */
function startReaders(flowUrl, tally, done, corpus) {
  const photos = ['front', 'back', 'front_angle'].map((side) => corpus.documents[0].sides[side]);
  const options = { config: DOCUMENT_CONFIG, count: READERS, tally, what: 'document' };
  return startBackgroundPersons(flowUrl, options, done, async (person, page) => {
    let lastUpload = 0;
    for (const photo of photos) {
      lastUpload = performance.now();
      await person.upload('upload', photo);
      await person.awaitReading(page);
    }
    return performance.now() - lastUpload;
  });
}

/**
 * Persons proving liveness: an attempt started, as long a wait as the poses take, the live face's frames
 * photographed again (bench/verification's corpus) in the challenge's order (two a pose, the hold apart), then the progress page until the verdict.
 */
function startFacePersons(flowUrl, tally, done, corpus) {
  const frameBytes = corpus.face;
  const options = { config: FACE_CONFIG, count: FACES, tally, what: 'face' };
  return startBackgroundPersons(flowUrl, options, done, async (person, page) => {
    await person.submit('face start', { action: 'start' });
    const nonce = /data-nonce="([^"]+)"/.exec(person.page)?.[1];
    const steps = /data-steps="([^"]+)"/.exec(person.page)?.[1]?.split(',') ?? [];
    const gap = Number(/data-hold-ms="(\d+)"/.exec(person.page)?.[1] ?? 300) + 10;
    // The frames' times must fit in what the server saw elapse since the challenge.
    await new Promise((resolve) => setTimeout(resolve, steps.length * 2 * gap + 150));
    const frames = steps.flatMap((pose, index) =>
      frameBytes[pose].map((bytes, frame) => ({ bytes, atMs: index * 2 * gap + frame * gap })),
    );
    const sent = performance.now();
    await person.uploadFrames('face frames', nonce, frames);
    await person.awaitReading(page);
    return performance.now() - sent;
  });
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
