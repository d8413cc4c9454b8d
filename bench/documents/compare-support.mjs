// What the build comparisons share (compare-builds.mjs: both builds in one process; compare-isolated.mjs: a
// process per build): the document types read, the value-by-value comparison, and the lifted safety caps.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

// As the benchmark reads them (bench/documents/read-worker.mjs).
export const ACCEPTED = ['dni', 'passport', 'licence'];
// Wall-clock values: they differ from one run to the next whatever the build.
const UNTIMED = new Set(['ms', 'timings']);

/**
 * Compares two readings value by value, wall-clock values aside; pushes each difference and returns how many
 * values were compared. Bytes (the portrait's crop) are one value: equal or not.
 */
export function compareValues(before, after, at, differences) {
  if (ArrayBuffer.isView(before) && ArrayBuffer.isView(after)) {
    if (
      Buffer.compare(
        Buffer.from(before.buffer, before.byteOffset, before.byteLength),
        Buffer.from(after.buffer, after.byteOffset, after.byteLength),
      ) !== 0
    ) {
      differences.push({ at, before: `${before.byteLength} bytes`, after: `${after.byteLength} bytes, different` });
    }
    return 1;
  }
  if (before === null || after === null || typeof before !== 'object' || typeof after !== 'object') {
    if (!Object.is(before, after)) differences.push({ at, before, after });
    return 1;
  }
  if (Array.isArray(before) !== Array.isArray(after)) {
    differences.push({ at, before, after });
    return 1;
  }
  let compared = 0;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (UNTIMED.has(key)) continue;
    compared += compareValues(before[key], after[key], `${at}.${key}`, differences);
  }
  return compared;
}

// The wall-clock safety caps: on a loaded machine a pass cut short by one reads differently whatever the
// build, so `--lift-caps` raises them in both builds to compare what the builds read, not the machine's
// load. They are exported constants of the compiled modules, each read from its module's exports at every
// use; older builds kept them beside the code that applies them.
const CAPS = ['DEFAULT_OCR_TIMEOUT_MS', 'RECAPTURE_OCR_TIMEOUT_MS', 'ARBITRATION_OCR_TIMEOUT_MS', 'DEFAULT_SIDE_SAFETY_CAP_MS'];
const CAP_MODULES = [
  'calibration/budgets.js',
  'pipeline/read-side.js',
  'readers/ocr.js',
  'readers/mrz-search/variants.js',
  'readers/mrz.reader.js',
];
const LIFTED_CAP_MS = 600_000;

/** Raises the safety caps of the verification build in `packageDir` (its dist/ already built). */
export function liftCaps(packageDir) {
  const lifted = new Set();
  for (const file of CAP_MODULES) {
    const module = path.join(packageDir, 'dist', file);
    if (!fs.existsSync(module)) continue;
    const exports = require(module);
    for (const name of CAPS) {
      // Only where the value is defined (a data property); a re-export is a getter onto it.
      if (Object.getOwnPropertyDescriptor(exports, name)?.writable !== true) continue;
      exports[name] = LIFTED_CAP_MS;
      lifted.add(name);
    }
  }
  const missing = CAPS.filter((name) => !lifted.has(name));
  if (missing.length > 0) throw new Error(`${packageDir}: no ${missing.join(', ')} found to lift`);
}
