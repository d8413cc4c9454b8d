#!/usr/bin/env node
// Complete DNI verifications through the real service (issue 43): `node bench/verification/run.mjs
// [--in-flight 4] [--count N] [--seconds S]` after `pnpm exec turbo run build`, with PostgreSQL, RabbitMQ and
// Redis up. Options and what each figure is: bench/verification/README.md.
//
// 1. Makes (or reuses from bench/results/verification-corpus/) the genuine persons' images: DNI cards of
//    packages/corpus with the test face's portrait, and that face's frames photographed again (corpus.mjs).
// 2. The yardstick (bench/machine-reference.mjs), then a stack of its own (packages/testkit: keys, sessions,
//    webhooks, flow-runner, gateway on a database of its own, dropped at the end), at TIME_SCALE=1. By default
//    the flow-runner runs as three replicas of the same build: one answering the person's pages with no
//    worker threads, one with the reading threads only (VERIFICATION_THREADS) and one with the face threads
//    only (FACE_THREADS), so that each pool's memory and CPU are a process's own; `--single` runs one
//    flow-runner with both pools, as deployed.
// 3. A live project whose flow is consent, `document_ar` (DNI: front, back, tilted front) and
//    `face_liveness` compared with the document's photo, with `documentData`; a webhook endpoint for its
//    approvals and rejections on a receiver on 127.0.0.1.
// 4. Warm-up verifications (not measured: each thread loads its engines and models on its first job), then
//    `--count` verifications with `--in-flight` at a time (no new one after `--seconds`), each a fresh
//    session and a person of its own (cookie jar, client address): link, consent, the three photos uploaded
//    as the page's form sends them, each reading waited for as the waiting page's script waits (the flow's
//    version, then the page), the face challenge started, the poses' time waited, the frames uploaded as the
//    camera page sends them, then the verdict webhook. Each verdict must be `approved` with the document's
//    fields as the corpus made them, or the run fails (exit 1) whatever its speed.
// 5. Prints verifications/s, CPU per verification (each process group, from /proc), the verdict's p50/p95
//    after the last capture (the frames' upload answered → the webhook received), the flow-runner
//    processes' resident memory (per reading and per face thread: a replica's peak minus its resident set
//    before its first job, divided by its threads), the yardstick before and after; hands them to
//    bench/report (BENCH_RESULT_FILE).
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineReference } from '../machine-reference.mjs';
import { reportResult } from '../report/result.mjs';
import { verificationCorpus } from './corpus.mjs';
import { Person, statusOf } from './person.mjs';
import { CpuTracker, difference, listenerPid, memoryMiB } from './process-stats.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const testkit = require(path.join(ROOT, 'packages/testkit/dist/index.js'));
const fromTestkit = (name) => require(require.resolve(name, { paths: [path.join(ROOT, 'packages/testkit')] }));
const { Agent } = fromTestkit('undici');
const pg = fromTestkit('pg');

const { values: args } = parseArgs({
  options: {
    'in-flight': { type: 'string', default: '4' },
    count: { type: 'string' },
    seconds: { type: 'string', default: '150' },
    documents: { type: 'string', default: '6' },
    seed: { type: 'string', default: '4343' },
    'reading-threads': { type: 'string', default: '1' },
    'face-threads': { type: 'string', default: '2' },
    warmup: { type: 'string' },
    single: { type: 'boolean', default: false },
  },
});
const IN_FLIGHT = Number(args['in-flight']);
const COUNT = Number(args.count ?? IN_FLIGHT * 4);
const SECONDS = Number(args.seconds);
const READING_THREADS = Number(args['reading-threads']);
const FACE_THREADS = Number(args['face-threads']);
const SINGLE = args.single;
const WARMUP = Number(args.warmup ?? Math.max(1, READING_THREADS));
const EVENTS = ['verification_session.approved', 'verification_session.rejected'];
const CONFIG = {
  steps: [
    { id: 'doc', type: 'document_ar', documents: ['dni'] },
    { id: 'face', type: 'face_liveness', compareWithDocument: true },
  ],
  options: { documentData: true, webhookEvents: EVENTS },
};
const log = (message) => process.stderr.write(`[verification] ${message}\n`);

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const sum = (values) => values.reduce((a, b) => a + b, 0);
/** Names compared as the document's checks compare them: accents, case and spacing aside. */
const plain = (value) =>
  String(value ?? '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/\s+/g, ' ')
    .trim();

/** The webhook receiver: every event kept by session, and a promise per session that resolves on its first. */
async function startReceiver() {
  const arrived = new Map(); // session id → { at, body }
  const waiters = new Map();
  const receiver = await testkit.Receiver.start((hit, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    const at = performance.now();
    const id = hit.body?.data?.object?.id;
    if (!id || arrived.has(id)) return;
    arrived.set(id, { at, body: hit.body });
    waiters.get(id)?.();
  });
  return {
    receiver,
    verdictOf(sessionId, timeoutMs = 180_000) {
      if (arrived.has(sessionId)) return Promise.resolve(arrived.get(sessionId));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no verdict webhook in 3 minutes')), timeoutMs);
        waiters.set(sessionId, () => {
          clearTimeout(timer);
          waiters.delete(sessionId);
          resolve(arrived.get(sessionId));
        });
      });
    },
  };
}

/** Why a verdict is not the genuine person's (empty when it is right). */
function wrongVerdict(body, document) {
  const problems = [];
  const object = body?.data?.object ?? {};
  if (body?.type !== 'verification_session.approved') {
    problems.push(`${body?.type} (${(object.result?.reason_codes ?? []).join(', ')})`);
  }
  const steps = (object.result?.steps ?? []).map((step) => `${step.id}:${step.verdict}`).join(',');
  if (steps !== 'consent:approved,doc:approved,face:approved') problems.push(`steps ${steps}`);
  const read = object.result?.document ?? {};
  const expected = document.fields;
  for (const field of ['number', 'sex', 'birth_date', 'expiry_date']) {
    if (read[field] !== expected[field]) problems.push(`${field} read ${read[field]}, is ${expected[field]}`);
  }
  for (const field of ['surname', 'given_names']) {
    if (plain(read[field]) !== plain(expected[field])) problems.push(`${field} read differently`);
  }
  return problems;
}

/** One person's complete verification; resolves with its timings, throws on any failure or wrong verdict. */
async function verify({ index, key, projectId, flowUrl, agent, corpus, verdicts, onStart }) {
  const document = corpus.documents[index % corpus.documents.length];
  const person = new Person(flowUrl, agent, `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`);
  const started = performance.now();
  await onStart?.();
  const created = await testkit.api('POST', '/v1/verification-sessions', { key, body: { project_id: projectId } });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const sessionId = created.body.id;
  await person.get(created.body.url);
  await person.post({ action: 'accept' });
  const readings = {};
  for (const side of ['front', 'back', 'front_angle']) {
    if (person.side() !== side)
      throw new Error(`the page asks for ${person.side() ?? 'no side'} instead of ${side}: ${person.describe()}`);
    const sent = performance.now();
    await person.post(
      { side, action: 'upload' },
      { files: [{ field: 'capture', bytes: document.sides[side], filename: 'foto.jpg' }] },
    );
    await person.waitWhileWaiting();
    readings[side] = performance.now() - sent;
  }
  await person.post({ action: 'start' });
  const nonce = /data-nonce="([^"]+)"/.exec(person.page)?.[1];
  const poses = /data-steps="([^"]+)"/.exec(person.page)?.[1]?.split(',') ?? [];
  if (!nonce || poses.length === 0) throw new Error(`no face challenge after the document: ${person.describe()}`);
  const gap = Number(/data-hold-ms="(\d+)"/.exec(person.page)?.[1] ?? 600) + 10;
  // The frames' times must fit in what the server saw elapse since the challenge: the person takes that long.
  await new Promise((resolve) => setTimeout(resolve, poses.length * 2 * gap + 150));
  const frames = poses.flatMap((pose, position) =>
    corpus.face[pose].map((bytes, n) => ({ bytes, atMs: position * 2 * gap + n * gap })),
  );
  let lastCaptureAnswered = NaN;
  const frameSent = performance.now();
  await person.post(
    { action: 'frames', nonce, at_ms: frames.map((frame) => frame.atMs).join(',') },
    {
      files: frames.map((frame, n) => ({ field: 'frame', bytes: frame.bytes, filename: `frame-${n}.jpg` })),
      onAnswer: (answer) => {
        lastCaptureAnswered = performance.now();
        if (answer.status !== 303) throw new Error(`frames: ${answer.status} ${answer.text.slice(0, 200)}`);
      },
    },
  );
  await person.waitWhileWaiting();
  const facePage = performance.now() - frameSent;
  const verdict = await verdicts.verdictOf(sessionId);
  const problems = wrongVerdict(verdict.body, document);
  if (statusOf(person.page) !== 'approved') problems.push(`the last page is ${statusOf(person.page) ?? person.describe()}`);
  if (problems.length > 0) throw new Error(`${document.id}: ${problems.join('; ')}`);
  return {
    document: document.id,
    wallMs: verdict.at - started,
    verdictMs: verdict.at - lastCaptureAnswered,
    frameUploadMs: lastCaptureAnswered - frameSent,
    facePageMs: facePage,
    readingMs: readings,
  };
}

async function main() {
  const corpus = await verificationCorpus({ seed: Number(args.seed), count: Number(args.documents), log });
  log(`yardstick…`);
  const yardstickBefore = await machineReference();
  const verdicts = await startReceiver();
  const threads = (reading, face) => ({ VERIFICATION_THREADS: String(reading), FACE_THREADS: String(face) });
  log(`starting the stack${SINGLE ? '' : ' (flow-runner: pages, readers and faces replicas)'}…`);
  const stack = await testkit.Stack.start({
    database: 'idv_bench_verification',
    services: ['keys', 'sessions', 'webhooks', 'flow-runner', 'gateway'],
    env: { LOG_LEVEL: 'warn', TIME_SCALE: '1' },
    serviceEnv: { 'flow-runner': SINGLE ? threads(READING_THREADS, FACE_THREADS) : threads(0, 0) },
  });
  const restoreEnv = stack.exportEnv();
  const agent = new Agent({ connections: IN_FLIGHT * 4 + 4 });
  let admin;
  let sampler;
  try {
    const processes = Object.fromEntries([...stack.running].map(([name, service]) => [name, service.process.pid]));
    if (!SINGLE) {
      processes['flow-runner readers'] = (await stack.startReplica('flow-runner', threads(READING_THREADS, 0))).process.pid;
      processes['flow-runner faces'] = (await stack.startReplica('flow-runner', threads(0, FACE_THREADS))).process.pid;
    }
    const flowRunners = Object.keys(processes).filter((name) => name.startsWith('flow-runner'));
    const readyMemory = Object.fromEntries(flowRunners.map((name) => [name, memoryMiB(processes[name])]));

    const database = new URL(stack.env.DATABASE_URL).pathname.slice(1);
    admin = new pg.Client({ connectionString: testkit.infraFromEnv().postgresAdminUrl });
    await admin.connect();
    const brokerPid = listenerPid(Number(new URL(testkit.infraFromEnv().amqpUrl).port || 5672));
    const redisPid = listenerPid(Number(new URL(testkit.infraFromEnv().redisUrl).port || 6379));
    const cpu = new CpuTracker(async () => {
      const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
      return {
        ...Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, [pid]])),
        'PostgreSQL (this database’s backends)': rows.map((row) => row.pid),
        ...(brokerPid ? { 'RabbitMQ (whole broker)': [brokerPid] } : {}),
        ...(redisPid ? { 'Redis (whole server)': [redisPid] } : {}),
      };
    });
    await cpu.sample();
    // Backends come and go with the pools: sampled often, so that one that closes loses little.
    sampler = setInterval(() => cpu.sample().catch(() => undefined), 1000);

    const tenant = await testkit.buildTenant({ config: CONFIG, modes: ['live'], tokens: COUNT + WARMUP + 10 });
    const endpoint = await testkit.api('POST', '/v1/webhook-endpoints', {
      key: tenant.liveKey,
      body: { url: verdicts.receiver.url, events: EVENTS, description: 'bench/verification' },
    });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${endpoint.text}`);
    const context = {
      key: tenant.liveKey,
      projectId: tenant.project.id,
      flowUrl: stack.url('flow-runner'),
      agent,
      corpus,
      verdicts,
    };

    log(`${WARMUP} warm-up verification(s) (not measured)…`);
    const warm = performance.now();
    await Promise.all(Array.from({ length: WARMUP }, (_, n) => verify({ ...context, index: 1_000_000 + n })));
    log(`warm-up done in ${((performance.now() - warm) / 1000).toFixed(1)} s`);

    log(`${COUNT} verifications, ${IN_FLIGHT} in flight (no new one after ${SECONDS} s)…`);
    const before = await cpu.sample();
    const generatorBefore = process.cpuUsage();
    const started = performance.now();
    const done = [];
    const failures = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < COUNT && performance.now() - started < SECONDS * 1000) {
          const index = next++;
          let cpuAtStart;
          try {
            const result = await verify({
              ...context,
              index,
              // One at a time, the processes' CPU between a verification's start and its verdict is its own.
              onStart: IN_FLIGHT === 1 ? async () => (cpuAtStart = await cpu.sample()) : undefined,
            });
            if (IN_FLIGHT === 1) result.cpu = difference(await cpu.sample(), cpuAtStart);
            done.push(result);
          } catch (error) {
            failures.push(error.message);
            log(`verification ${index} failed: ${error.message}`);
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const used = difference(await cpu.sample(), before);
    const generator = process.cpuUsage(generatorBefore);
    clearInterval(sampler);
    sampler = undefined;
    const memory = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, memoryMiB(pid)]));

    const finished = done.length;
    const groups = Object.keys(used);
    const isShared = (group) => group.startsWith('RabbitMQ') || group.startsWith('Redis');
    const servicesAndDatabase = sum(groups.filter((group) => !isShared(group)).map((group) => used[group]));
    const everything = sum(groups.map((group) => used[group]));
    const perVerification = (value) => value / Math.max(1, finished);
    const perThread = (name, count) =>
      memory[name] && readyMemory[name] && count > 0 ? (memory[name].peak - readyMemory[name].rss) / count : NaN;
    const cpuSeries = (pick) => done.filter((result) => result.cpu).map((result) => pick(result.cpu));
    const cpuServices = cpuSeries((c) =>
      sum(
        Object.entries(c)
          .filter(([g]) => !isShared(g))
          .map(([, v]) => v),
      ),
    );
    const cpuAll = cpuSeries((c) => sum(Object.values(c)));
    const result = {
      inFlight: IN_FLIGHT,
      readingThreads: READING_THREADS,
      faceThreads: FACE_THREADS,
      topology: SINGLE ? 'single' : 'split',
      documents: corpus.documents.length,
      requested: COUNT,
      completed: finished,
      failed: failures.length,
      failures: failures.slice(0, 10),
      seconds,
      verificationsPerSecond: finished / seconds,
      coreSecondsPerVerification: perVerification(everything),
      coreSecondsPerVerificationServicesAndDatabase: perVerification(servicesAndDatabase),
      coreSecondsByProcess: Object.fromEntries(groups.map((group) => [group, perVerification(used[group])])),
      coreSecondsP50: percentile(cpuAll, 50),
      coreSecondsP95: percentile(cpuAll, 95),
      coreSecondsServicesAndDatabaseP50: percentile(cpuServices, 50),
      loadGeneratorCoreSecondsPerVerification: perVerification((generator.user + generator.system) / 1e6),
      capacityPerSecondOnThisMachine: os.cpus().length / perVerification(everything),
      verdictP50Ms: percentile(
        done.map((r) => r.verdictMs),
        50,
      ),
      verdictP95Ms: percentile(
        done.map((r) => r.verdictMs),
        95,
      ),
      verdictMaxMs: Math.max(...done.map((r) => r.verdictMs)),
      wallP50Ms: percentile(
        done.map((r) => r.wallMs),
        50,
      ),
      readingP50Ms: Object.fromEntries(
        ['front', 'back', 'front_angle'].map((side) => [
          side,
          percentile(
            done.map((r) => r.readingMs[side]),
            50,
          ),
        ]),
      ),
      facePageP50Ms: percentile(
        done.map((r) => r.facePageMs),
        50,
      ),
      rssPerReadingThreadMiB: SINGLE ? null : perThread('flow-runner readers', READING_THREADS),
      rssPerFaceThreadMiB: SINGLE ? null : perThread('flow-runner faces', FACE_THREADS),
      memoryMiB: Object.fromEntries(
        Object.entries(memory).map(([name, m]) => [
          name,
          { ...m, ...(readyMemory[name] ? { readyRss: readyMemory[name].rss } : {}) },
        ]),
      ),
      yardstick: yardstickBefore,
      loadAverage: os.loadavg(),
      node: process.version,
    };
    await stack.stop().catch(() => undefined);
    log('yardstick after…');
    result.yardstickAfter = await machineReference();
    print(result);
    reportResult(result);
    if (failures.length > 0 || finished === 0) {
      log(`${failures.length} verification(s) failed or gave a wrong verdict: these figures do not count`);
      process.exitCode = 1;
    }
  } finally {
    if (sampler) clearInterval(sampler);
    await admin?.end().catch(() => undefined);
    restoreEnv();
    await stack.stop().catch(() => undefined);
    await verdicts.receiver.close();
    await agent.close();
  }
}

function print(r) {
  const cpus = os.cpus();
  const mib = (value) => (Number.isFinite(value) ? `${value.toFixed(0)} MiB` : '–');
  const lines = [
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus.length} × ${cpus[0]?.model.trim()} (Node ${r.node}); yardstick`,
    `(bench/machine-reference.mjs) ${Math.round(r.yardstick).toLocaleString('en-US')} requests/s before, ${Math.round(r.yardstickAfter).toLocaleString('en-US')} after;`,
    `load average at the end ${r.loadAverage.map((l) => l.toFixed(1)).join(' / ')}.`,
    `${r.completed} complete DNI verifications (${r.failed} failed or wrong; ${r.documents} documents in turn), ${r.inFlight} in flight,`,
    `flow-runner ${r.topology === 'split' ? 'as pages + readers + faces replicas' : 'as one process'}, ${r.readingThreads} reading thread(s), ${r.faceThreads} face thread(s), TIME_SCALE=1.`,
    '',
    `- **${fixed(r.verificationsPerSecond, 3)} verifications/s** (${r.seconds.toFixed(1)} s; each holds the person's own time, about 4 s for the face poses)`,
    `- **core-seconds per verification: ${fixed(r.coreSecondsPerVerification)}** (all processes below), ${fixed(r.coreSecondsPerVerificationServicesAndDatabase)} without the shared broker and Redis` +
      (Number.isFinite(r.coreSecondsP50)
        ? `; one at a time, per verification p50 ${fixed(r.coreSecondsP50)}, p95 ${fixed(r.coreSecondsP95)}`
        : ''),
    `  → at most ${fixed(r.capacityPerSecondOnThisMachine)} verifications/s on these ${cpus.length} cores if CPU were the only limit`,
    `- **verdict after the last capture: p50 ${fixed(r.verdictP50Ms / 1000)} s, p95 ${fixed(r.verdictP95Ms / 1000)} s** (max ${fixed(r.verdictMaxMs / 1000)} s; the frames' upload answered → the webhook received)`,
    `- one verification p50 ${fixed(r.wallP50Ms / 1000, 1)} s from the session's creation to the webhook; each side's upload to its next page p50: ${Object.entries(
      r.readingP50Ms,
    )
      .map(([side, ms]) => `${side} ${fixed(ms / 1000)} s`)
      .join(', ')}; the frames' upload to the verdict page p50 ${fixed(r.facePageP50Ms / 1000)} s`,
    ...(r.topology === 'split'
      ? [
          `- **resident memory per reading thread ${mib(r.rssPerReadingThreadMiB)}, per face thread ${mib(r.rssPerFaceThreadMiB)}** (a replica's peak VmHWM minus its VmRSS before its first job, over its threads)`,
        ]
      : ['- per-thread memory: not separable with `--single` (one process holds both pools); the process peak is below']),
    `- load generator (this process, not counted above): ${fixed(r.loadGeneratorCoreSecondsPerVerification, 3)} core-seconds per verification`,
    '',
    '| process | core-s per verification | peak RSS | RSS before the first job |',
    '| --- | ---: | ---: | ---: |',
    ...Object.entries(r.coreSecondsByProcess).map(
      ([name, value]) =>
        `| ${name} | ${fixed(value, 3)} | ${r.memoryMiB[name] ? mib(r.memoryMiB[name].peak) : '–'} | ${r.memoryMiB[name]?.readyRss ? mib(r.memoryMiB[name].readyRss) : '–'} |`,
    ),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
