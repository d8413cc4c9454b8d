// A thread of the benchmark's read pool: runs the service's own verification task (the default export
// of packages/verification/dist/worker.js, the file the service's piscina pool loads) on one document,
// and reports what it cost: wall time, and this isolate's heap and off-heap (wasm, buffers) after it.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const verification = require(path.join(ROOT, 'packages/verification/dist/index.js'));
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
    await verification.stopReaders?.();
    parentPort.postMessage({ kind: 'stopped', peakHeap, peakExternal });
    return;
  }
  const { dir, labels, acceptedTypes } = message;
  try {
    const sides = labels.map((label) => ({ side: label.side, image: fs.readFileSync(path.join(dir, label.file)) }));
    const today = labels[0].reference_date;
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const result = await runVerificationTask({ kind: 'read_document', sides, acceptedTypes, today });
    const cpu = process.cpuUsage(cpuBefore);
    const ms = performance.now() - started;
    sampleMemory();
    const reading = result.reading;
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
      // Process CPU over the task: exact with one reading thread, an upper bound with several.
      cpuMs: (cpu.user + cpu.system) / 1000,
      reading: {
        doc_type: reading.doc_type,
        fields: reading.fields,
        reasons: reading.reasons,
        checks: reading.checks.map(({ name, verdict, reason }) => ({ name, verdict, reason })),
        sides: reading.sides.map((side) => ({
          side: side.side,
          barcode_text: side.barcode?.text ?? null,
          mrz_lines: side.mrz?.lines ?? null,
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
