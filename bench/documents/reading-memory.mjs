#!/usr/bin/env node
// Where a reading thread's memory goes: `node bench/documents/reading-memory.mjs [--documents 6] [--seed 4343]
// [--rounds 1] [--verification DIR] [--heap-mb 512] [--young-mb 12] [--json FILE]`.
//
// Runs packages/verification's dist/worker.js (or DIR's) in one worker thread of a process of its own, the
// way the flow-runner's readers-only replica runs it (the main thread has loaded @idv/verification, as the
// service's does; the thread is a worker with the pool's default heap limits, VERIFICATION_MAX_HEAP_MB and
// VERIFICATION_YOUNG_GENERATION_MB; `--young-mb 48` is V8's own young generation for a thread), and reads the
// front, back and tilted front of bench/verification's DNI cards (bench/verification/corpus.mjs, prepared by
// `prepareUpload` as the pages prepare an upload) through `read_side`, side after side. The figure is
// bench/verification's: the process's peak resident set (VmHWM) minus its resident set once the thread was
// ready (dist/worker.js loaded, no engine started). After the engines start and after each side it says where
// the resident set is, from /proc/self/smaps and each isolate's heap:
// - WebAssembly memories (zxing's, each tesseract worker's), each a mapping of its own;
// - glibc malloc: the main arena (brk) and the per-thread arenas (64 MiB reservations), where typed arrays'
//   backing stores, libvips' buffers and the threads' native allocations live;
// - the V8 heaps of every isolate (the reading thread's, and of the threads it starts: the two tesseract
//   workers and the quality helper, found by wrapping worker_threads.Worker before anything starts one);
// - code and other file mappings, thread stacks, other anonymous memory;
// and libvips' own settings (sharp.cache(), sharp.concurrency()) and its live tracked memory.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..', '..');
const MiB = 1024 * 1024;
const SIDES = ['front', 'back', 'front_angle'];

// ---------------------------------------------------------------- the reading thread
if (!isMainThread) {
  const { packageDir } = workerData;
  // Every thread this one starts (tesseract.js's workers, the quality helper), so that their heaps can be
  // asked for. tesseract.js takes `Worker` from the module when it loads, the quality helper at each start:
  // both see the wrapper, which must be in place before dist/worker.js is required.
  const threads = require('node:worker_threads');
  const started = [];
  const OriginalWorker = threads.Worker;
  threads.Worker = class RecordedWorker extends OriginalWorker {
    constructor(file, options) {
      super(file, options);
      started.push({ file: String(file), worker: this, exited: false });
      this.once('exit', () => {
        started.find((entry) => entry.worker === this).exited = true;
      });
    }
  };
  const runVerificationTask = require(path.join(packageDir, 'dist/worker.js')).default;
  const sharp = require(require.resolve('sharp', { paths: [packageDir] }));
  const engines = () => require(path.join(packageDir, 'dist/engines.js'));
  let peakHeap = 0;
  let peakExternal = 0;
  const sampler = setInterval(() => {
    peakHeap = Math.max(peakHeap, v8.getHeapStatistics().used_heap_size);
    peakExternal = Math.max(peakExternal, process.memoryUsage().external);
  }, 10);
  sampler.unref();
  // The reading thread's collections: their pauses are the CPU a smaller young generation would add.
  const collections = { scavenges: 0, markCompacts: 0, ms: 0 };
  new PerformanceObserver((entries) => {
    for (const entry of entries.getEntries()) {
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) collections.scavenges += 1;
      else if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) collections.markCompacts += 1;
      collections.ms += entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });

  const nameOf = (file) =>
    /tesseract/.test(file) ? 'tesseract' : /quality-thread/.test(file) ? 'quality helper' : path.basename(file);

  async function stats() {
    const own = v8.getHeapStatistics();
    const usage = process.memoryUsage();
    const others = [];
    for (const { file, worker, exited } of started) {
      if (exited) continue;
      try {
        const heap = await worker.getHeapStatistics();
        others.push({
          name: nameOf(file),
          heapTotal: heap.total_heap_size,
          heapUsed: heap.used_heap_size,
          external: heap.external_memory,
        });
      } catch {
        others.push({ name: nameOf(file), heapTotal: 0, heapUsed: 0, external: 0 });
      }
    }
    return {
      heapTotal: own.total_heap_size,
      heapUsed: own.used_heap_size,
      peakHeap,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
      peakExternal,
      collections: { ...collections },
      others,
      sharp: { cache: sharp.cache(), concurrency: sharp.concurrency(), counters: sharp.counters() },
    };
  }

  parentPort.on('message', async (message) => {
    try {
      if (message.kind === 'stats') parentPort.postMessage({ ok: true, stats: await stats() });
      else if (message.kind === 'load-zxing') {
        await require(path.join(packageDir, 'dist/readers/zxing.js')).loadBarcodeModule();
        parentPort.postMessage({ ok: true });
      } else if (message.kind === 'start-engines') {
        await engines().startEngines();
        parentPort.postMessage({ ok: true });
      } else if (message.kind === 'read') {
        const started = performance.now();
        const { reading } = await runVerificationTask({ kind: 'read_side', ...message.task });
        parentPort.postMessage({
          ok: true,
          ms: performance.now() - started,
          summary: { barcode: reading.barcode?.text ?? null, problems: reading.problems },
        });
      } else if (message.kind === 'stop') {
        await engines().stopEngines();
        parentPort.postMessage({ ok: true });
      }
    } catch (error) {
      parentPort.postMessage({ ok: false, error: error.stack ?? String(error) });
    }
  });
}

// ---------------------------------------------------------------- /proc/self
function status() {
  const text = fs.readFileSync('/proc/self/status', 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM'), threads: Number(/^Threads:\s+(\d+)/m.exec(text)?.[1] ?? 0) };
}

/** The process's mappings with their resident bytes. */
function mappings() {
  const out = [];
  let current = null;
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      current = {
        start: BigInt(`0x${header[1]}`),
        end: BigInt(`0x${header[2]}`),
        perms: header[3],
        name: header[4].trim(),
        rss: 0,
      };
      out.push(current);
    } else if (current && line.startsWith('Rss:')) current.rss = Number(/(\d+)/.exec(line)[1]) * 1024;
  }
  return out;
}

const GiB = 1024n * 1024n * 1024n;
const ARENA = 64n * 1024n * 1024n;

/**
 * Resident bytes by kind. A wasm memory is an anonymous read-write mapping followed by its inaccessible
 * reservation (V8 reserves 8 GiB and more for a 32-bit memory, to bounds-check by trapping); a glibc arena
 * heap is a 64 MiB-aligned 64 MiB reservation whose first part is read-write.
 */
function breakdown() {
  const maps = mappings();
  const groups = { wasm: 0, arenas: 0, brk: 0, files: 0, stacks: 0, otherAnon: 0 };
  const wasm = [];
  for (let index = 0; index < maps.length; index++) {
    const map = maps[index];
    if (map.name === '[heap]') groups.brk += map.rss;
    else if (map.name.startsWith('[stack')) groups.stacks += map.rss;
    else if (map.name.startsWith('/') || (map.name.startsWith('[') && map.name !== '[anon]' && map.name !== ''))
      groups.files += map.rss;
    else {
      // The inaccessible reservation that follows, contiguous.
      let reserved = 0n;
      for (let next = index + 1; next < maps.length; next++) {
        const following = maps[next];
        if (following.start !== maps[next - 1].end || following.perms !== '---p' || following.name !== '') break;
        reserved += following.end - following.start;
      }
      const size = map.end - map.start;
      const previous = maps[index - 1];
      if (map.perms.startsWith('rw') && reserved >= 4n * GiB) {
        groups.wasm += map.rss;
        wasm.push({ start: map.start.toString(16), size: Number(size), rss: map.rss });
      } else if (map.perms.startsWith('rw') && map.start % ARENA === 0n && size + reserved === ARENA) groups.arenas += map.rss;
      else if (
        map.perms.startsWith('rw') &&
        previous !== undefined &&
        previous.end === map.start &&
        previous.perms === '---p' &&
        previous.end - previous.start === 4096n
      )
        groups.stacks += map.rss;
      else groups.otherAnon += map.rss;
    }
  }
  return { groups, wasm };
}

// ---------------------------------------------------------------- the measured process
async function child({ images, packageDir, heapMb, youngMb, rounds }) {
  // As the flow-runner's main thread: it loads @idv/verification (prepare-upload turns libvips' cache off).
  require(path.join(packageDir, 'dist/index.js'));
  let peakRss = status().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, status().rss);
  }, 5);
  const worker = new Worker(SELF, {
    workerData: { packageDir },
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: youngMb },
  });
  const ask = (message) =>
    new Promise((resolve, reject) => {
      worker.once('message', (reply) => (reply.ok ? resolve(reply) : reject(new Error(reply.error))));
      worker.postMessage(message);
    });
  await ask({ kind: 'stats' });
  const ready = status();
  const snapshots = [];
  const wasmSeen = new Map();
  const snapshot = async (label) => {
    const { stats } = await ask({ kind: 'stats' });
    const now = status();
    const { groups, wasm } = breakdown();
    for (const memory of wasm) if (!wasmSeen.has(memory.start)) wasmSeen.set(memory.start, label);
    snapshots.push({ label, rss: now.rss, hwm: now.hwm, peakRss, threads: now.threads, groups, wasm, stats });
  };
  await snapshot('ready');
  // zxing's module alone first, so that its wasm memory is told from the two tesseract workers'.
  await ask({ kind: 'load-zxing' });
  await snapshot('zxing loaded');
  await ask({ kind: 'start-engines' });
  await snapshot('engines started');
  const today = new Date().toISOString().slice(0, 10);
  // CPU of every thread of the process (the reading thread, the OCR workers, the quality helper, libvips').
  let cpuMs = 0;
  for (let round = 0; round < rounds; round++) {
    for (const document of images) {
      for (const side of SIDES) {
        const cpuBefore = process.cpuUsage();
        const reply = await ask({
          kind: 'read',
          task: { side, image: document.sides[side], acceptedTypes: ['dni'], today },
        });
        const cpu = process.cpuUsage(cpuBefore);
        cpuMs += (cpu.user + cpu.system) / 1000;
        await snapshot(`${document.id} ${side} (${reply.ms.toFixed(0)} ms)`);
      }
    }
  }
  clearInterval(sampler);
  await ask({ kind: 'stop' });
  await worker.terminate();
  return { ready, snapshots, wasmOrigin: Object.fromEntries(wasmSeen), cpuMs, sides: rounds * images.length * SIDES.length };
}

// ---------------------------------------------------------------- the report
function report(result) {
  const mib = (bytes) => (bytes / MiB).toFixed(0).padStart(5);
  const { ready, snapshots, wasmOrigin } = result;
  const last = snapshots.at(-1);
  process.stdout.write(
    `ready: RSS ${mib(ready.rss)} MiB; peak (VmHWM) ${mib(last.hwm)} MiB; ` +
      `per reading thread (VmHWM − ready) ${mib(last.hwm - ready.rss)} MiB; RSS at the end ${mib(last.rss)} MiB; ` +
      `CPU ${(result.cpuMs / result.sides).toFixed(0)} ms a side (all threads, ${result.sides} sides)\n`,
  );
  // Counted from the engines' start: the first snapshot after the reading began is the base.
  const base = snapshots.find((shot) => shot.label === 'engines started').stats.collections;
  const { scavenges, markCompacts, ms } = last.stats.collections;
  process.stdout.write(
    `reading thread's collections while reading: ${scavenges - base.scavenges} scavenges, ` +
      `${markCompacts - base.markCompacts} mark-compacts, ${(ms - base.ms).toFixed(0)} ms of pauses in all ` +
      `(${((ms - base.ms) / result.sides).toFixed(1)} ms a side)\n\n`,
  );
  const headers = [
    'after',
    'RSS',
    'HWM',
    'wasm',
    'arenas',
    'brk',
    'other anon',
    'files',
    'stacks',
    'heap (read)',
    'heaps (others)',
    'ext (read)',
    'threads',
    'others: heap+external',
    'wasm sizes',
  ];
  process.stdout.write(`${headers.join(' | ')}\n`);
  for (const shot of snapshots) {
    const othersHeap = shot.stats.others.reduce((sum, other) => sum + other.heapTotal, 0);
    const cells = [
      shot.label.padEnd(34),
      mib(shot.rss),
      mib(shot.hwm),
      mib(shot.groups.wasm),
      mib(shot.groups.arenas),
      mib(shot.groups.brk),
      mib(shot.groups.otherAnon),
      mib(shot.groups.files),
      mib(shot.groups.stacks),
      mib(shot.stats.heapTotal),
      mib(othersHeap),
      mib(shot.stats.external),
      String(shot.threads).padStart(3),
      shot.stats.others
        .map((other) => `${other.name.split(' ')[0]} ${mib(other.heapTotal).trim()}+${mib(other.external).trim()}`)
        .join(', '),
    ];
    const sizes = shot.wasm.map((memory) => `${(memory.size / MiB).toFixed(0)}`).join('/');
    process.stdout.write(`${cells.join(' | ')} | ${sizes}\n`);
  }
  process.stdout.write('\nWebAssembly memories at the end (first seen after):\n');
  for (const memory of last.wasm) {
    process.stdout.write(
      `  ${memory.start}: size ${mib(memory.size)} MiB, resident ${mib(memory.rss)} MiB (${wasmOrigin[memory.start]})\n`,
    );
  }
  process.stdout.write('\nIsolates at the end (heap total / used, MiB):\n');
  process.stdout.write(
    `  reading thread: ${mib(last.stats.heapTotal)} / ${mib(last.stats.heapUsed)} (peak used ${mib(last.stats.peakHeap)}, ` +
      `external ${mib(last.stats.external)}, peak external ${mib(last.stats.peakExternal)}, arrayBuffers ${mib(last.stats.arrayBuffers)})\n`,
  );
  for (const other of last.stats.others) {
    process.stdout.write(`  ${other.name}: ${mib(other.heapTotal)} / ${mib(other.heapUsed)} (external ${mib(other.external)})\n`);
  }
  process.stdout.write(`\nlibvips: ${JSON.stringify(last.stats.sharp)}\n`);
}

// ---------------------------------------------------------------- entry
if (isMainThread) {
  if (process.argv[2] === '--child') {
    process.once('message', async (message) => {
      const result = await child(message);
      process.send(result, () => process.exit(0));
    });
  } else {
    const { values: args } = parseArgs({
      options: {
        documents: { type: 'string', default: '6' },
        seed: { type: 'string', default: '4343' },
        rounds: { type: 'string', default: '1' },
        verification: { type: 'string', default: path.join(ROOT, 'packages/verification') },
        'heap-mb': { type: 'string', default: '512' },
        'young-mb': { type: 'string', default: '12' },
        json: { type: 'string' },
      },
    });
    const { verificationCorpus } = await import(path.join(ROOT, 'bench/verification/corpus.mjs'));
    const corpus = await verificationCorpus({
      seed: Number(args.seed),
      count: Number(args.documents),
      log: (line) => process.stderr.write(`[reading-memory] ${line}\n`),
    });
    const packageDir = path.resolve(args.verification);
    const { prepareUpload } = require(path.join(packageDir, 'dist/index.js'));
    // As the pages store an upload (services/flow-runner/src/adapters/upload-ports.ts).
    const images = [];
    for (const document of corpus.documents) {
      const sides = {};
      for (const side of SIDES) {
        const prepared = await prepareUpload(document.sides[side]);
        if (!prepared.ok) throw new Error(`${document.id} ${side}: ${prepared.reason}`);
        sides[side] = prepared.jpeg;
      }
      images.push({ id: document.id, sides });
    }
    // glibc's arenas capped as the flow-runner runs (deploy/k8s/base/flow-runner.yaml, packages/testkit's stack).
    const measured = fork(SELF, ['--child'], {
      serialization: 'advanced',
      stdio: 'inherit',
      env: { MALLOC_ARENA_MAX: '2', ...process.env },
    });
    measured.send({
      images,
      packageDir,
      heapMb: Number(args['heap-mb']),
      youngMb: Number(args['young-mb']),
      rounds: Number(args.rounds),
    });
    const result = await new Promise((resolve, reject) => {
      measured.once('message', resolve);
      measured.once('exit', (code) => reject(new Error(`the measured process exited with ${code}`)));
    });
    process.stdout.write(`${packageDir}, MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2'}\n`);
    report(result);
    // The machine's yardstick after the reading, as every benchmark prints it.
    const { machineReference } = await import(path.join(ROOT, 'bench/machine-reference.mjs'));
    process.stdout.write(`yardstick (bench/machine-reference.mjs): ${Math.round(await machineReference())} requests/s\n`);
    if (args.json) fs.writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
  }
}
