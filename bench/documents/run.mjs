#!/usr/bin/env node
// Document reading benchmark: `node bench/documents/run.mjs [--seed N] [--count N] [--workers N]`
// (after `pnpm exec turbo run build`; also `pnpm bench:documents`).
//
// 1. Generates the labelled corpus of packages/corpus (document i of the seed, every degradation
//    profile in turn) into bench/results/corpus/, or reuses it when it is there.
// 2. Reads each document with the service's own code path: the default export of
//    packages/verification/dist/worker.js (`read_side` per side, as the service reads each upload, then
//    `combineSides`: together `readDocument`), the file the service's worker-thread pool loads, in a
//    pool of its own process so that its memory is measured alone.
// 3. Prints per degradation: barcode and MRZ read rates, field-exact rate, false accepts (a wrong field
//    in a document that passed every check), recapture detection and false alarms, time and CPU per
//    document, peak memory per worker, and the machine yardstick; writes the figures as JSON to
//    bench/results/.
// 4. Prints the cost from the last upload to the verdict: the service reads each side when it is
//    uploaded, so the person waits only for the last side's reading and the checks (with
//    `--front-angle`, the front photo is also read as the flow's last side, the angled front), and
//    the genuine documents rejected, per degradation, with their reason codes.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { machineReference } from '../machine-reference.mjs';
import { reportResult } from '../report/result.mjs';
import { loadVerification } from './verification-build.mjs';

const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const RESULTS = path.join(ROOT, 'bench', 'results');
const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));
const verification = loadVerification(path.join(ROOT, 'packages/verification'));

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string', default: '42' },
    count: { type: 'string', default: '60' },
    workers: { type: 'string', default: '1' },
    'generate-jobs': { type: 'string', default: String(Math.max(1, Math.min(2, os.cpus().length))) },
    width: { type: 'string', default: String(corpus.DEFAULT_GENERATE_OPTIONS.width) },
    height: { type: 'string', default: String(corpus.DEFAULT_GENERATE_OPTIONS.height) },
    'front-angle': { type: 'boolean', default: false },
  },
});
const SEED = Number(args.seed);
const COUNT = Number(args.count);
const WORKERS = Math.max(1, Number(args.workers));
const GENERATE_JOBS = Math.max(1, Number(args['generate-jobs']));
const OPTIONS = { ...corpus.DEFAULT_GENERATE_OPTIONS, seed: SEED, width: Number(args.width), height: Number(args.height) };
const FRONT_ANGLE = args['front-angle'];
const ACCEPTED = ['dni', 'passport', 'licence'];
// The order in which the flow asks for the sides (services/flow-runner/src/domain/steps/document.ts,
// `SIDES_OF`): the last one uploaded is the one the person waits for.
const FLOW_ORDER = {
  dni: ['front', 'back', 'front_angle'],
  licence: ['front', 'back', 'front_angle'],
  passport: ['front', 'front_angle'],
};
// The fields a document must give back exactly (the API's `result.document` core).
const EXACT_FIELDS = ['number', 'surname', 'given_names', 'sex', 'birth_date', 'expiry_date'];

const TARGETS = {
  barcode: 0.99,
  mrz: 0.97,
  falseAccepts: 0,
  detection: 0.9,
  falseAlarm: 0.02,
  documentP50Ms: 1500,
};

const log = (line) => process.stderr.write(`[bench:documents] ${line}\n`);

async function generateCorpus() {
  const root = path.join(RESULTS, 'corpus');
  const dir = corpus.corpusCacheDir(root, OPTIONS);
  const documents = new Array(COUNT);
  const missing = [];
  for (let index = 0; index < COUNT; index++) {
    const file = path.join(dir, `${corpus.documentId(SEED, index)}.labels.json`);
    if (fs.existsSync(file)) documents[index] = { dir, labels: JSON.parse(fs.readFileSync(file, 'utf8')) };
    else missing.push(index);
  }
  if (missing.length === 0) {
    log(`corpus: ${COUNT} documents cached in ${path.relative(ROOT, dir)}`);
    return documents;
  }
  log(`corpus: generating ${missing.length} of ${COUNT} documents on ${GENERATE_JOBS} threads into ${path.relative(ROOT, dir)}`);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(GENERATE_JOBS, missing.length) }, async () => {
      const worker = new Worker(path.join(HERE, 'generate-worker.mjs'));
      try {
        while (next < missing.length) {
          const index = missing[next++];
          const reply = await new Promise((resolve, reject) => {
            worker.once('message', resolve);
            worker.once('error', reject);
            worker.postMessage({ index, options: OPTIONS, root });
          });
          worker.removeAllListeners('error');
          if (!reply.ok) throw new Error(`document ${index}: ${reply.error}`);
          documents[index] = { dir, labels: reply.labels };
        }
      } finally {
        await worker.terminate();
      }
    }),
  );
  log(`corpus: generated in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return documents;
}

async function readAll(documents) {
  // With glibc's arenas capped as the flow-runner is deployed (deploy/k8s/base/flow-runner.yaml): the pool's
  // resident memory is the service's.
  const child = fork(path.join(HERE, 'read-pool.mjs'), [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { MALLOC_ARENA_MAX: '2', ...process.env },
  });
  const results = new Array(documents.length);
  let done = 0;
  const started = performance.now();
  const summary = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? undefined : reject(new Error(`read pool exited with ${code}`))));
    child.on('message', (message) => {
      if (message.kind === 'result') {
        results[message.position] = message;
        done++;
        if (done % 10 === 0 || done === documents.length) log(`read ${done}/${documents.length} documents`);
      } else if (message.kind === 'done') {
        resolve(message);
      }
    });
    child.send({ documents, workers: WORKERS, acceptedTypes: ACCEPTED, frontAngle: FRONT_ANGLE });
  });
  return { results, summary, seconds: (performance.now() - started) / 1000 };
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function barcodeRead(label, side) {
  const text = side?.barcode_text;
  if (text === null || text === undefined) return false;
  return text === label.barcode.payload || Buffer.from(text, 'latin1').toString('utf8') === label.barcode.payload;
}

function mrzRead(label, side) {
  return (side?.mrz_lines ?? []).join('\n') === label.mrz.lines.join('\n');
}

/**
 * A valid MRZ read's names, which no check digit covers: whether the names line was read right, and
 * what `readSide` weighed in giving them back or withholding them (weakest letter's confidence,
 * corroboration). The data `MIN_NAME_CONFIDENCE` in read-side.ts is calibrated on.
 */
function mrzNames(label, side) {
  if (label.mrz === null || side?.mrz_names == null || side.mrz_valid !== true) return null;
  const index = label.mrz.lines.length === 3 ? 2 : 0;
  const read = side.mrz_lines?.[index] ?? '';
  const truth = label.mrz.lines[index] ?? '';
  // A TD3's first line carries the type and state before the names.
  const names = (line) => (label.mrz.lines.length === 3 ? line : line.slice(5));
  return { ...side.mrz_names, right: names(read) === names(truth) };
}

/** Fields given back equal to the label (normalised as the checks compare them), and fields given back wrong. */
function judgeFields(labelFields, readFields) {
  const wrong = [];
  let exact = true;
  for (const field of EXACT_FIELDS) {
    const truth = labelFields[field];
    const value = readFields[field];
    if (truth === null) continue;
    if (value === null || value === undefined) {
      exact = false;
      continue;
    }
    if (verification.compareFields({ [field]: value }, { [field]: truth }, [field]).length > 0) {
      wrong.push(field);
      exact = false;
    }
  }
  for (const field of ['cuil', 'doc_type']) {
    const truth = labelFields[field];
    const value = readFields[field];
    if (
      truth !== null &&
      value !== null &&
      value !== undefined &&
      verification.compareFields({ [field]: value }, { [field]: truth }, [field]).length > 0
    ) {
      wrong.push(field);
    }
  }
  return { exact, wrong };
}

function evaluate(documents, results) {
  const rows = [];
  documents.forEach((document, index) => {
    const result = results[index];
    const first = document.labels[0];
    if (!result?.ok) {
      rows.push({
        profile: first.degradation.profile,
        failed: true,
        error: result?.error ?? 'no result',
        labels: document.labels,
      });
      return;
    }
    const reading = result.reading;
    const sides = document.labels.map((label, position) => {
      const side = reading.sides[position];
      return {
        label,
        barcode: label.barcode === null ? null : barcodeRead(label, side),
        mrz: label.mrz === null ? null : mrzRead(label, side),
        names: mrzNames(label, side),
        screen: result.quality[position],
        ms: side?.ms ?? null,
        cost: result.sideCosts?.[position] ?? null,
        timings: side?.timings ?? null,
        work: side?.work ?? null,
      };
    });
    const fields = judgeFields(first.fields, reading.fields);
    const accepted = reading.reasons.length === 0;
    const expected = [...new Set(document.labels.flatMap((label) => label.expected.reason_codes))];
    // What the person waits for after the last upload: that side's reading and the checks. Of the sides
    // the corpus has, the last in the flow's order (the back of a DNI or licence, a passport's page).
    const order = FLOW_ORDER[first.doc_type] ?? FLOW_ORDER.dni;
    const last = sides.reduce((latest, side) =>
      order.indexOf(side.label.side) > order.indexOf(latest.label.side) ? side : latest,
    );
    const genuine = expected.length === 0 && document.labels.every((label) => label.expected.recapture === null);
    rows.push({
      profile: first.degradation.profile,
      variant: first.variant,
      failed: false,
      sides,
      exact: fields.exact,
      wrong: fields.wrong,
      accepted,
      expected,
      reasons: reading.reasons,
      // The fields given back, for comparing runs document by document.
      fields: reading.fields,
      falseAccept: accepted && fields.wrong.length > 0,
      missedDefect: accepted && expected.some((code) => code !== 'document_screen_detected'),
      genuine,
      falseReject: genuine && !accepted,
      ms: result.ms,
      cpuMs: result.cpuMs,
      lastSide: {
        side: last.label.side,
        ms: (last.cost?.ms ?? 0) + result.checks.ms,
        cpuMs: (last.cost?.cpuMs ?? 0) + result.checks.cpuMs,
      },
      frontAngle:
        result.angle === null
          ? null
          : { ms: result.angle.ms + result.angle.checksMs, cpuMs: result.angle.cpuMs + result.angle.checksCpuMs },
    });
  });
  return rows;
}

/** The valid MRZ reads' names: right or wrong, given back or withheld, with their weakest letters' confidence. */
function namesLine(rows) {
  const reads = rows.filter((row) => !row.failed).flatMap((row) => row.sides.filter((side) => side.names !== null));
  const describe = (list) => {
    const given = list.filter((side) => !side.names.withheld);
    const confidences = (subset) => subset.map((side) => Math.round(side.names.confidence)).sort((a, b) => a - b);
    return `${list.length} (given back ${given.length}, weakest letter ${confidences(given).join(' ') || '-'}; withheld ${list.length - given.length}, weakest letter ${confidences(list.filter((side) => side.names.withheld)).join(' ') || '-'})`;
  };
  const wrongGiven = reads.filter((side) => !side.names.right && !side.names.withheld).map((side) => side.label.id);
  return `MRZ names of the valid reads (no check digit covers them): read right ${describe(reads.filter((side) => side.names.right))}; read wrong ${describe(reads.filter((side) => !side.names.right))}${wrongGiven.length > 0 ? `; wrong names given back: ${wrongGiven.join(', ')}` : ''}.`;
}

function countCodes(codes) {
  const counts = {};
  for (const code of codes) counts[code] = (counts[code] ?? 0) + 1;
  return counts;
}

function rate(hits, total) {
  return { hits, total, rate: total === 0 ? null : hits / total };
}

function summarise(rows) {
  const ok = rows.filter((row) => !row.failed);
  const sides = ok.flatMap((row) => row.sides);
  const barcodeSides = sides.filter((side) => side.barcode !== null);
  const mrzSides = sides.filter((side) => side.mrz !== null);
  const recaptureSides = sides.filter((side) => side.label.expected.recapture !== null);
  const originalSides = sides.filter((side) => side.label.expected.recapture === null);
  return {
    documents: rows.length,
    errors: rows.length - ok.length,
    sides: sides.length,
    barcode: rate(barcodeSides.filter((side) => side.barcode).length, barcodeSides.length),
    mrz: rate(mrzSides.filter((side) => side.mrz).length, mrzSides.length),
    exact: rate(ok.filter((row) => row.exact).length, ok.length),
    falseAccepts: ok.filter((row) => row.falseAccept).length,
    missedDefects: ok.filter((row) => row.missedDefect).length,
    detection: rate(recaptureSides.filter((side) => side.screen.detected).length, recaptureSides.length),
    falseAlarm: rate(originalSides.filter((side) => side.screen.detected).length, originalSides.length),
    falseRejects: rate(ok.filter((row) => row.falseReject).length, ok.filter((row) => row.genuine).length),
    falseRejectCodes: countCodes(ok.filter((row) => row.falseReject).flatMap((row) => row.reasons)),
    lastP50: percentile(
      ok.map((row) => row.lastSide.ms),
      50,
    ),
    lastP99: percentile(
      ok.map((row) => row.lastSide.ms),
      99,
    ),
    lastCpuP50: percentile(
      ok.map((row) => row.lastSide.cpuMs),
      50,
    ),
    lastCpuP99: percentile(
      ok.map((row) => row.lastSide.cpuMs),
      99,
    ),
    angleCpuP50: percentile(
      ok.flatMap((row) => (row.frontAngle === null ? [] : [row.frontAngle.cpuMs])),
      50,
    ),
    angleCpuP99: percentile(
      ok.flatMap((row) => (row.frontAngle === null ? [] : [row.frontAngle.cpuMs])),
      99,
    ),
    angleP50: percentile(
      ok.flatMap((row) => (row.frontAngle === null ? [] : [row.frontAngle.ms])),
      50,
    ),
    angleP99: percentile(
      ok.flatMap((row) => (row.frontAngle === null ? [] : [row.frontAngle.ms])),
      99,
    ),
    p50: percentile(
      ok.map((row) => row.ms),
      50,
    ),
    p99: percentile(
      ok.map((row) => row.ms),
      99,
    ),
    cpuP50: percentile(
      ok.map((row) => row.cpuMs),
      50,
    ),
    cpuP99: percentile(
      ok.map((row) => row.cpuMs),
      99,
    ),
    sideP50: percentile(
      sides.map((side) => side.ms).filter((ms) => ms !== null),
      50,
    ),
    sideP99: percentile(
      sides.map((side) => side.ms).filter((ms) => ms !== null),
      99,
    ),
  };
}

const pct = (value) => (value.rate === null ? '–' : `${(100 * value.rate).toFixed(1)}% (${value.hits}/${value.total})`);
/**
 * Wilson's 95% score interval of a rate: with 20 recaptures and 80 originals a seed, one photo moves a
 * rate by 5 or 1.25 points, so a target's verdict on one seed is read with its interval beside it.
 */
function wilson(value) {
  if (value.rate === null) return '';
  const z = 1.96;
  const n = value.total;
  const centre = (value.rate + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((value.rate * (1 - value.rate)) / n + (z * z) / (4 * n * n));
  const bound = (x) => (100 * Math.min(1, Math.max(0, x))).toFixed(1);
  return ` [95% interval ${bound(centre - half)}–${bound(centre + half)}%]`;
}
const pctWithInterval = (value) => `${pct(value)}${wilson(value)}`;
const ms = (value) => (value === null ? '–' : value.toFixed(0));
const codes = (counts) =>
  Object.keys(counts).length === 0
    ? '–'
    : Object.entries(counts)
        .sort((a, b) => b[1] - a[1])
        .map(([code, count]) => `${code} ×${count}`)
        .join(', ');
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

function table(groups) {
  const header =
    '| degradation | docs | barcode read | MRZ read | field-exact | false accepts | recaptures detected | false alarms | p50 / p99 ms per document | CPU ms p50 / p99 |';
  const rule = '|---|---|---|---|---|---|---|---|---|---|';
  return [
    header,
    rule,
    ...groups.map(
      ([name, s]) =>
        `| ${name} | ${s.documents}${s.errors > 0 ? ` (${s.errors} errors)` : ''} | ${pct(s.barcode)} | ${pct(s.mrz)} | ${pct(s.exact)} | ${s.falseAccepts} | ${pct(s.detection)} | ${pct(s.falseAlarm)} | ${ms(s.p50)} / ${ms(s.p99)} | ${ms(s.cpuP50)} / ${ms(s.cpuP99)} |`,
    ),
  ].join('\n');
}

// The person's wait: after the last upload, that side's reading and the checks (the earlier sides were
// read while the next photo was being taken).
function waitTable(groups) {
  const header = `| degradation | whole document: CPU ms p50 / p99 | whole document: wall ms p50 / p99 | last side + checks: CPU ms p50 / p99 | last side + checks: wall ms p50 / p99 |${
    FRONT_ANGLE ? ' front read as front_angle + checks: CPU ms p50 / p99 | front_angle + checks: wall ms p50 / p99 |' : ''
  }`;
  const rule = FRONT_ANGLE ? '|---|---|---|---|---|---|---|' : '|---|---|---|---|---|';
  return [
    header,
    rule,
    ...groups.map(
      ([name, s]) =>
        `| ${name} | ${ms(s.cpuP50)} / ${ms(s.cpuP99)} | ${ms(s.p50)} / ${ms(s.p99)} | ${ms(s.lastCpuP50)} / ${ms(s.lastCpuP99)} | ${ms(s.lastP50)} / ${ms(s.lastP99)} |${
          FRONT_ANGLE ? ` ${ms(s.angleCpuP50)} / ${ms(s.angleCpuP99)} | ${ms(s.angleP50)} / ${ms(s.angleP99)} |` : ''
        }`,
    ),
  ].join('\n');
}

function rejectTable(groups) {
  return [
    '| degradation | genuine documents rejected | reason codes |',
    '|---|---|---|',
    ...groups.map(([name, s]) => `| ${name} | ${pct(s.falseRejects)} | ${codes(s.falseRejectCodes)} |`),
  ].join('\n');
}

function verdict(value, target, better) {
  if (value === null) return 'n/a';
  return (better === 'higher' ? value >= target : value <= target) ? 'met' : 'NOT met';
}

async function main() {
  log(`seed ${SEED}, ${COUNT} documents, ${WORKERS} reading thread(s), ${OPTIONS.width}×${OPTIONS.height}`);
  const yardstick = await machineReference();
  const documents = await generateCorpus();
  const { results, summary, seconds } = await readAll(documents);
  const rows = evaluate(documents, results);
  const profiles = corpus.DEGRADATION_PROFILES;
  const groups = profiles.map((profile) => [profile, summarise(rows.filter((row) => row.profile === profile))]);
  // Tilt away from the nearest quarter turn (zxing reads 90° turns on its own; tilt is what is hard).
  const tiltOf = (row) => {
    const turn = (((row.sides[0]?.label.degradation.tilt_deg ?? 0) % 90) + 90) % 90;
    return Math.min(turn, 90 - turn);
  };
  const jpegOf = (row) => row.sides[0]?.label.degradation.jpeg_quality ?? 100;
  const ok = rows.filter((row) => !row.failed);
  const targetSet = ok.filter(
    (row) => ['clean', 'tilt', 'jpeg', 'perspective', 'rotated'].includes(row.profile) && tiltOf(row) <= 15 && jpegOf(row) >= 40,
  );
  const buckets = [
    ['tilt ≤ 15°', summarise(ok.filter((row) => row.profile === 'tilt' && tiltOf(row) <= 15))],
    ['tilt > 15°', summarise(ok.filter((row) => row.profile === 'tilt' && tiltOf(row) > 15))],
    ['JPEG ≥ 40', summarise(ok.filter((row) => row.profile === 'jpeg' && jpegOf(row) >= 40))],
    ['JPEG < 40', summarise(ok.filter((row) => row.profile === 'jpeg' && jpegOf(row) < 40))],
    ['target set: tilt ≤ 15°, JPEG ≥ 40', summarise(targetSet)],
    ['all', summarise(rows)],
  ];
  const all = buckets[buckets.length - 1][1];
  const target = buckets[buckets.length - 2][1];
  const viaDirect = ok.some((row) => row.sides.some((side) => side.screen.via === 'direct'));
  const perWorkerRss = (summary.peakRss - summary.baselineRss) / WORKERS;
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} (Node ${process.version}), load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')};`,
    `a bare node HTTP server answers ${Math.round(yardstick).toLocaleString('en-US')} requests/s over loopback here (\`bench/machine-reference.mjs\`, the yardstick between machines).`,
    `Corpus seed ${SEED}, ${COUNT} documents (${all.sides} photos, ${OPTIONS.width}×${OPTIONS.height} JPEG), read side by side by \`read_side\` (packages/verification/dist/worker.js, the service's task) and \`combineSides\` on ${WORKERS} thread(s) in ${seconds.toFixed(0)} s.`,
    viaDirect
      ? "Recapture figures: the pipeline's quality port did not assess these photos, so they were measured with `assessImageQuality` (src/quality, the function the port is to call) on the same bytes."
      : "Recapture figures: from the pipeline's own quality assessment.",
    '',
    table([...groups, ...buckets]),
    '',
    `From the last upload to the verdict: the service reads each side as it is uploaded, so the person waits for the last side's reading and the checks. The last side is the last of the corpus's sides in the flow's order (a DNI's or licence's back, a passport's data page; the corpus has no angled front)${
      FRONT_ANGLE
        ? "; the front_angle columns read each front photo once more as the angled front, the flow's real last side for a DNI or licence, then the checks over all the sides"
        : ''
    }.`,
    '',
    waitTable([...groups, ...buckets]),
    '',
    'Genuine documents rejected (no reason code expected by the label, not a screen or print recapture), with the codes they got:',
    '',
    rejectTable([...groups, ...buckets]),
    '',
    namesLine(rows),
    '',
    `Memory: the pool process went from ${mib(summary.baselineRss)} to a peak of ${mib(summary.peakRss)} RSS: about ${mib(perWorkerRss)} per reading thread; per thread peak V8 heap ${summary.threads
      .map((thread) => mib(thread.peakHeap))
      .join(', ')}, off-heap (buffers, wasm) ${summary.threads.map((thread) => mib(thread.peakExternal)).join(', ')}.`,
    `Per side: p50 ${ms(all.sideP50)} ms, p99 ${ms(all.sideP99)} ms. CPU is the pool process's over each document (exact with one thread; with several it also counts the others').`,
    '',
    'Targets:',
    `- barcode ≥ 99% up to 15° tilt and JPEG ≥ 40: ${pctWithInterval(target.barcode)} — ${verdict(target.barcode.rate, TARGETS.barcode, 'higher')}`,
    `- MRZ ≥ 97%: ${pctWithInterval(all.mrz)} — ${verdict(all.mrz.rate, TARGETS.mrz, 'higher')} (on the target set: ${pct(target.mrz)})`,
    `- 0 false accepts: ${all.falseAccepts} — ${verdict(all.falseAccepts, TARGETS.falseAccepts, 'lower')} (defective documents accepted anyway: ${all.missedDefects})`,
    `- recapture detection ≥ 90% at ≤ 2% false alarms: ${pctWithInterval(all.detection)} at ${pctWithInterval(all.falseAlarm)} — ${verdict(all.detection.rate, TARGETS.detection, 'higher')} / ${verdict(all.falseAlarm.rate, TARGETS.falseAlarm, 'lower')}`,
    `- document step p50 < 1.5 s from the last upload to the verdict: last side + checks ${ms(all.lastP50)} ms wall, ${ms(all.lastCpuP50)} ms CPU — ${verdict(all.lastCpuP50, TARGETS.documentP50Ms, 'lower')} by CPU, ${verdict(all.lastP50, TARGETS.documentP50Ms, 'lower')} by wall on this machine${
      FRONT_ANGLE
        ? `; front_angle + checks ${ms(all.angleP50)} ms wall, ${ms(all.angleCpuP50)} ms CPU — ${verdict(all.angleCpuP50, TARGETS.documentP50Ms, 'lower')} by CPU`
        : ''
    } (whole document, every side one after the other: ${ms(all.p50)} ms wall, ${ms(all.cpuP50)} ms CPU)`,
  ];
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  const errors = rows.filter((row) => row.failed);
  for (const row of errors.slice(0, 5)) log(`error on ${row.labels[0].document_id}: ${row.error.split('\n')[0]}`);
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `documents-s${SEED}-n${COUNT}.json`);
  fs.writeFileSync(
    file,
    `${JSON.stringify(
      {
        seed: SEED,
        count: COUNT,
        workers: WORKERS,
        yardstick,
        memory: summary,
        groups: Object.fromEntries([...groups, ...buckets]),
        documents: rows.map((row) => ({
          ...row,
          sides: row.sides?.map((side) => ({ ...side, label: side.label.id })),
          labels: undefined,
        })),
        text,
      },
      null,
      2,
    )}\n`,
  );
  log(`figures: ${path.relative(ROOT, file)}`);
  reportResult({
    workers: WORKERS,
    count: COUNT,
    seconds,
    documentsPerSecond: COUNT / seconds,
    p50: all.p50,
    lastP50: all.lastP50,
    sideP50: all.sideP50,
    sideP99: all.sideP99,
    yardstick,
  });
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
