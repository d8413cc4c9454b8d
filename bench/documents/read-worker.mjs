// A thread of the benchmark's read pool: runs the service's own verification task (the default export
// of packages/verification/dist/worker.js, the file the service's piscina pool loads) on each side of
// one document, then the document's checks, and reports what each cost (wall and CPU time) and this
// isolate's heap and off-heap (wasm, buffers) after it.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { loadVerification } from './verification-build.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const verification = loadVerification(path.join(ROOT, 'packages/verification'));
const runVerificationTask = require(path.join(ROOT, 'packages/verification/dist/worker.js')).default;

let peakHeap = 0;
let peakExternal = 0;

function sampleMemory() {
  const heap = v8.getHeapStatistics();
  const usage = process.memoryUsage();
  peakHeap = Math.max(peakHeap, heap.used_heap_size);
  // external and arrayBuffers are this isolate's: image buffers and wasm memories (zxing, tesseract).
  peakExternal = Math.max(peakExternal, usage.external);
}

parentPort.on('message', async (message) => {
  if (message.kind === 'stop') {
    await (verification.stopEngines ?? verification.stopReaders)?.();
    parentPort.postMessage({ kind: 'stopped', peakHeap, peakExternal });
    return;
  }
  const { dir, labels, acceptedTypes, frontAngle } = message;
  try {
    const sides = labels.map((label) => ({ side: label.side, image: fs.readFileSync(path.join(dir, label.file)) }));
    const today = labels[0].reference_date;
    const options = { acceptedTypes, today };
    // Side by side, as the service reads them (each when it is uploaded, `read_side` in its worker pool),
    // then the checks over the readings: the same reading as `read_document`, which does exactly this in
    // one call, with the cost of each side and of the checks measured apart. CPU is the process's:
    // exact with one reading thread, an upper bound with several.
    const measure = async (work) => {
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      const value = await work();
      const cpu = process.cpuUsage(cpuBefore);
      return { value, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 };
    };
    const readOne = (side, image) =>
      measure(async () => (await runVerificationTask({ kind: 'read_side', side, image, ...options })).reading);
    const sideCosts = [];
    const readings = [];
    for (const { side, image } of sides) {
      const read = await readOne(side, image);
      readings.push(read.value);
      sideCosts.push({ side, ms: read.ms, cpuMs: read.cpuMs });
    }
    const checks = await measure(async () => verification.combineSides(readings, options));
    const reading = checks.value;
    const ms = sideCosts.reduce((sum, side) => sum + side.ms, 0) + checks.ms;
    const cpuMs = sideCosts.reduce((sum, side) => sum + side.cpuMs, 0) + checks.cpuMs;
    // The corpus has no angled front; with `frontAngle` the front photo is read once more as
    // `front_angle` (the flow's last side for a DNI or licence) and the checks run over all the sides,
    // for the cost of that last step only: the document's reading above is left as the corpus gives it.
    let angle = null;
    const front = sides.find((side) => side.side === 'front');
    if (frontAngle && front !== undefined) {
      const read = await readOne('front_angle', front.image);
      const angleChecks = await measure(async () => verification.combineSides([...readings, read.value], options));
      angle = { ms: read.ms, cpuMs: read.cpuMs, checksMs: angleChecks.ms, checksCpuMs: angleChecks.cpuMs };
    }
    sampleMemory();
    // The recapture figures need the quality measure; when the pipeline's port does not run it yet,
    // it is measured here with the same function the port is to call, and the report says so.
    const quality = [];
    for (const [index, side] of reading.sides.entries()) {
      if (side.quality.assessed) {
        quality.push({ detected: side.quality.screen.detected, score: side.quality.screen.score, via: 'pipeline' });
      } else {
        const report = await verification.assessImageQuality(sides[index].image);
        quality.push({ detected: report.screen.detected, score: report.screen.score, via: 'direct' });
      }
    }
    sampleMemory();
    parentPort.postMessage({
      kind: 'result',
      ok: true,
      ms,
      cpuMs,
      sideCosts,
      checks: { ms: checks.ms, cpuMs: checks.cpuMs },
      angle,
      reading: {
        doc_type: reading.doc_type,
        fields: reading.fields,
        reasons: reading.reasons,
        checks: reading.checks.map(({ name, verdict, reason }) => ({ name, verdict, reason })),
        sides: reading.sides.map((side) => ({
          side: side.side,
          barcode_text: side.barcode?.text ?? null,
          mrz_lines: side.mrz?.lines ?? null,
          mrz_valid: side.mrz?.valid ?? null,
          // What decides whether the MRZ's names are given back (no check digit covers them).
          mrz_names:
            side.mrz == null
              ? null
              : {
                  confidence: side.mrz.name_confidence,
                  corroborated: side.mrz.names_corroborated,
                  second_read: side.mrz.names_second_read,
                  withheld: side.mrz.names_withheld,
                },
          printed: side.printed?.fields ?? null,
          problems: side.problems,
          ms: side.ms,
          timings: side.timings,
          work: side.work,
        })),
      },
      quality,
    });
  } catch (error) {
    parentPort.postMessage({ kind: 'result', ok: false, error: error.stack ?? String(error) });
  }
});
