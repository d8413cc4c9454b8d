import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { SCREEN_FEATURE_NAMES, screenScore, type ScreenFeatureName, type ScreenModel } from '@idv/verification';
import type { CalibrationRow, CalibrationTask } from './calibration-worker';
import { DEFAULT_GENERATE_OPTIONS, assignment, documentId, type GenerateOptions } from './generate';

/**
 * Calibration of the image-quality limits and of the recapture model on the corpus.
 *
 * Two corpora from two seeds: the calibration split fits the recapture model and chooses every
 * threshold; the held-out split, never seen while choosing, gives the figures that are reported. The
 * images are cached (cache.ts) and so are the read results (the slow part), so that a change to the
 * features only costs measuring them again.
 *
 * - Recapture: a logistic model over the standardised features (class-balanced, L2), and the threshold
 *   that keeps false alarms at or below `maxFalseAlarm` while detecting at least `minDetection` of the
 *   recaptures on the calibration split (midway between the two limits when both can be met).
 * - Blur, glare, darkness: the limit that flags at most `maxFlaggedReadable` of the photos whose
 *   barcode and MRZ were read by the service's own `readSide`; the report says how many unreadable ones
 *   it catches and the read rate along each measure.
 */
export interface CalibrationOptions {
  calibrationSeed: number;
  heldOutSeed: number;
  /** Documents per split. */
  count: number;
  jobs: number;
  /** Where the read results and the report are kept. */
  cacheDir: string;
  /** Where the corpus images are kept. */
  corpusRoot: string;
  /** The profiles whose photos are read to calibrate the capture limits. */
  readProfiles: readonly string[];
  width: number;
  height: number;
  maxFalseAlarm: number;
  minDetection: number;
  maxFlaggedReadable: number;
  log: (line: string) => void;
}

export const DEFAULT_CALIBRATION: Omit<CalibrationOptions, 'cacheDir' | 'corpusRoot' | 'log'> = {
  calibrationSeed: 1001,
  heldOutSeed: 2002,
  count: 240,
  jobs: 2,
  readProfiles: ['clean', 'blur', 'glare', 'low_light'],
  width: DEFAULT_GENERATE_OPTIONS.width,
  height: DEFAULT_GENERATE_OPTIONS.height,
  maxFalseAlarm: 0.02,
  minDetection: 0.9,
  maxFlaggedReadable: 0.02,
};

interface WorkerReply {
  ok: boolean;
  rows?: CalibrationRow[];
  error?: string;
}

/** Runs the tasks over `jobs` worker threads; results in task order. */
async function runPool(
  tasks: readonly CalibrationTask[],
  jobs: number,
  log: (line: string) => void,
): Promise<CalibrationRow[][]> {
  const results: CalibrationRow[][] = new Array<CalibrationRow[]>(tasks.length);
  let next = 0;
  let done = 0;
  const workerFile = path.join(__dirname, 'calibration-worker.js');
  const runWorker = async (): Promise<void> => {
    const worker = new Worker(workerFile);
    try {
      while (next < tasks.length) {
        const position = next;
        next += 1;
        const task = tasks[position] as CalibrationTask;
        const reply = await new Promise<WorkerReply>((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
          worker.postMessage(task);
        });
        worker.removeAllListeners('error');
        if (!reply.ok || reply.rows === undefined) throw new Error(`document ${task.index}: ${reply.error ?? 'no rows'}`);
        results[position] = reply.rows;
        done += 1;
        if (done % 10 === 0 || done === tasks.length) log(`  ${done}/${tasks.length} documents`);
      }
    } finally {
      worker.postMessage('stop');
      await new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        setTimeout(() => void worker.terminate().then(() => resolve()), 5000).unref();
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, tasks.length)) }, runWorker));
  return results;
}

export async function collectRows(seed: number, options: CalibrationOptions): Promise<CalibrationRow[]> {
  const readsFile = path.join(options.cacheDir, `reads-s${seed}-${options.width}x${options.height}.jsonl`);
  const cachedReads = new Map<string, CalibrationRow['read']>();
  if (fs.existsSync(readsFile)) {
    for (const line of fs.readFileSync(readsFile, 'utf8').split('\n')) {
      if (line === '') continue;
      const entry = JSON.parse(line) as { id: string; read: CalibrationRow['read'] };
      cachedReads.set(entry.id, entry.read);
    }
  }
  const generate: GenerateOptions = { ...DEFAULT_GENERATE_OPTIONS, seed, width: options.width, height: options.height };
  const tasks = Array.from({ length: options.count }, (_, index): CalibrationTask => {
    const wanted = options.readProfiles.includes(assignment(index, generate).profile);
    const known = cachedReads.has(`${documentId(seed, index)}-front`);
    return { index, options: generate, corpusRoot: options.corpusRoot, read: wanted && !known };
  });
  options.log(
    `seed ${seed}: ${options.count} documents (${tasks.filter((task) => task.read).length} to read) on ${options.jobs} threads`,
  );
  const rows = (await runPool(tasks, options.jobs, options.log))
    .flat()
    .map((row) => (row.read === null && cachedReads.has(row.id) ? { ...row, read: cachedReads.get(row.id) ?? null } : row));
  fs.mkdirSync(options.cacheDir, { recursive: true });
  fs.writeFileSync(readsFile, `${rows.map((row) => JSON.stringify({ id: row.id, read: row.read })).join('\n')}\n`);
  return rows;
}

/** Class-balanced logistic regression with an L2 penalty, by plain gradient descent (deterministic). */
export function fitScreenModel(rows: readonly CalibrationRow[]): Omit<ScreenModel, 'threshold'> {
  const names = SCREEN_FEATURE_NAMES;
  const stats = names.map((name) => {
    const values = rows.map((row) => row.quality.features[name] ?? 0);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
    return { mean, scale: Math.sqrt(variance) || 1 };
  });
  const x = rows.map((row) =>
    names.map((name, column) => ((row.quality.features[name] ?? 0) - (stats[column]?.mean ?? 0)) / (stats[column]?.scale ?? 1)),
  );
  const y = rows.map((row) => (row.recapture === null ? 0 : 1));
  const positives = y.reduce<number>((sum, value) => sum + value, 0);
  const negatives = y.length - positives;
  const sampleWeight = y.map((value) => (value === 1 ? y.length / (2 * positives) : y.length / (2 * negatives)));
  const weights = new Array<number>(names.length).fill(0);
  let bias = 0;
  const lambda = 0.01;
  const rate = 0.5;
  for (let iteration = 0; iteration < 4000; iteration += 1) {
    const gradient = new Array<number>(names.length).fill(0);
    let biasGradient = 0;
    x.forEach((features, row) => {
      let z = bias;
      features.forEach((value, column) => (z += value * (weights[column] ?? 0)));
      const error = (1 / (1 + Math.exp(-z)) - (y[row] ?? 0)) * (sampleWeight[row] ?? 1);
      biasGradient += error;
      features.forEach((value, column) => (gradient[column] = (gradient[column] ?? 0) + error * value));
    });
    bias -= (rate * biasGradient) / x.length;
    for (let column = 0; column < names.length; column += 1) {
      weights[column] = (weights[column] ?? 0) - rate * ((gradient[column] ?? 0) / x.length + lambda * (weights[column] ?? 0));
    }
  }
  const features = Object.fromEntries(
    names.map((name, column) => [
      name,
      { mean: stats[column]?.mean ?? 0, scale: stats[column]?.scale ?? 1, weight: weights[column] ?? 0 },
    ]),
  ) as Record<ScreenFeatureName, { mean: number; scale: number; weight: number }>;
  return { bias, features };
}

export interface Rates {
  detected: number;
  recaptures: number;
  false_alarms: number;
  originals: number;
  detection_rate: number;
  false_alarm_rate: number;
}

export function rates(rows: readonly CalibrationRow[], scores: readonly number[], threshold: number): Rates {
  let detected = 0;
  let recaptures = 0;
  let falseAlarms = 0;
  let originals = 0;
  rows.forEach((row, index) => {
    const flagged = (scores[index] ?? 0) >= threshold;
    if (row.recapture === null) {
      originals += 1;
      if (flagged) falseAlarms += 1;
    } else {
      recaptures += 1;
      if (flagged) detected += 1;
    }
  });
  return {
    detected,
    recaptures,
    false_alarms: falseAlarms,
    originals,
    detection_rate: recaptures === 0 ? 0 : detected / recaptures,
    false_alarm_rate: originals === 0 ? 0 : falseAlarms / originals,
  };
}

/** The threshold between the lowest that keeps false alarms ≤ max and the highest that keeps detection ≥ min. */
export function chooseThreshold(
  rows: readonly CalibrationRow[],
  scores: readonly number[],
  maxFalseAlarm: number,
  minDetection: number,
): { threshold: number; met: boolean } {
  const originals = rows.flatMap((row, index) => (row.recapture === null ? [scores[index] ?? 0] : [])).sort((a, b) => b - a);
  const recaptures = rows.flatMap((row, index) => (row.recapture === null ? [] : [scores[index] ?? 0])).sort((a, b) => b - a);
  const allowedFalseAlarms = Math.floor(maxFalseAlarm * originals.length);
  // Strictly above the (allowed + 1)-th highest original score.
  const falseAlarmLimit = (originals[allowedFalseAlarms] ?? 0) + 1e-9;
  const needed = Math.ceil(minDetection * recaptures.length);
  // At or below the needed-th highest recapture score.
  const detectionLimit = recaptures[needed - 1] ?? 0;
  if (detectionLimit >= falseAlarmLimit) {
    // Midway in the logit, so both margins are alike on the model's own scale.
    const logit = (p: number): number => Math.log(Math.max(p, 1e-12) / Math.max(1 - p, 1e-12));
    const middle = (logit(falseAlarmLimit) + logit(detectionLimit)) / 2;
    return { threshold: 1 / (1 + Math.exp(-middle)), met: true };
  }
  return { threshold: falseAlarmLimit, met: false };
}

type Measure = 'blur' | 'glare' | 'brightness';

export interface LimitReport {
  measure: Measure;
  direction: 'below' | 'above';
  limit: number;
  /** Readable photos the limit would flag (calibration, held-out). */
  flagged_readable: [number, number, number, number];
  /** Unreadable photos of the profile it targets that the limit flags (calibration, held-out). */
  caught_unreadable: [number, number, number, number];
  /** Read rate by bins of the measure, on both splits together. */
  curve: { from: number; to: number; photos: number; read_rate: number }[];
}

function readable(row: CalibrationRow): boolean | null {
  if (row.read === null) return null;
  return (!row.read.barcode_expected || row.read.barcode_ok) && (!row.read.mrz_expected || row.read.mrz_ok);
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))))] ?? 0;
}

export function chooseLimit(
  measure: Measure,
  direction: 'below' | 'above',
  profile: string,
  calibration: readonly CalibrationRow[],
  heldOut: readonly CalibrationRow[],
  maxFlaggedReadable: number,
  bins: readonly number[],
): LimitReport {
  const value = (row: CalibrationRow): number => row.quality[measure];
  const readableValues = calibration
    .filter((row) => readable(row) === true)
    .map(value)
    .sort((a, b) => a - b);
  const limit =
    direction === 'below' ? quantile(readableValues, maxFlaggedReadable) : quantile(readableValues, 1 - maxFlaggedReadable);
  const flags = (row: CalibrationRow): boolean => (direction === 'below' ? value(row) < limit : value(row) > limit);
  const count = (rows: readonly CalibrationRow[], keep: (row: CalibrationRow) => boolean): [number, number] => {
    const kept = rows.filter(keep);
    return [kept.filter(flags).length, kept.length];
  };
  const flaggedReadable = [
    ...count(calibration, (row) => readable(row) === true),
    ...count(heldOut, (row) => readable(row) === true),
  ] as [number, number, number, number];
  const unreadableOfProfile = (row: CalibrationRow): boolean => readable(row) === false && row.profile === profile;
  const caught = [...count(calibration, unreadableOfProfile), ...count(heldOut, unreadableOfProfile)] as [
    number,
    number,
    number,
    number,
  ];
  const all = [...calibration, ...heldOut].filter((row) => readable(row) !== null);
  const curve = bins.slice(0, -1).map((from, index) => {
    const to = bins[index + 1] ?? Infinity;
    const inBin = all.filter((row) => value(row) >= from && value(row) < to);
    return {
      from,
      to,
      photos: inBin.length,
      read_rate: inBin.length === 0 ? 0 : inBin.filter((row) => readable(row) === true).length / inBin.length,
    };
  });
  return { measure, direction, limit, flagged_readable: flaggedReadable, caught_unreadable: caught, curve };
}

export interface CalibrationReport {
  options: Omit<CalibrationOptions, 'log' | 'cacheDir' | 'corpusRoot'>;
  model: ScreenModel;
  threshold_met_on_calibration: boolean;
  screen: {
    calibration: Rates;
    held_out: Rates;
    held_out_by_kind: Record<'screen' | 'print', Rates>;
    held_out_false_alarms_by_profile: Record<string, [number, number]>;
  };
  limits: LimitReport[];
  /** Milliseconds per `assessQuality` call (held-out): p50, p99. */
  quality_ms: [number, number];
}

export async function calibrate(options: CalibrationOptions): Promise<CalibrationReport> {
  const calibration = await collectRows(options.calibrationSeed, options);
  const heldOut = await collectRows(options.heldOutSeed, options);
  const fitted = fitScreenModel(calibration);
  const provisional: ScreenModel = { ...fitted, threshold: 0.5 };
  const calibrationScores = calibration.map((row) =>
    screenScore(row.quality.features as Record<ScreenFeatureName, number>, provisional),
  );
  const { threshold, met } = chooseThreshold(calibration, calibrationScores, options.maxFalseAlarm, options.minDetection);
  const model: ScreenModel = { ...fitted, threshold };
  const heldOutScores = heldOut.map((row) => screenScore(row.quality.features as Record<ScreenFeatureName, number>, model));
  const byKind = (kind: 'screen' | 'print'): Rates => {
    const keep = heldOut.map((row) => row.recapture === null || row.recapture === kind);
    return rates(
      heldOut.filter((_, index) => keep[index]),
      heldOutScores.filter((_, index) => keep[index]),
      threshold,
    );
  };
  const falseAlarmsByProfile: Record<string, [number, number]> = {};
  heldOut.forEach((row, index) => {
    if (row.recapture !== null) return;
    const entry = falseAlarmsByProfile[row.profile] ?? [0, 0];
    if ((heldOutScores[index] ?? 0) >= threshold) entry[0] += 1;
    entry[1] += 1;
    falseAlarmsByProfile[row.profile] = entry;
  });
  const times = heldOut.map((row) => row.quality.ms).sort((a, b) => a - b);
  const { log: _log, cacheDir: _cacheDir, corpusRoot: _corpusRoot, ...reported } = options;
  return {
    options: reported,
    model,
    threshold_met_on_calibration: met,
    screen: {
      calibration: rates(calibration, calibrationScores, threshold),
      held_out: rates(heldOut, heldOutScores, threshold),
      held_out_by_kind: { screen: byKind('screen'), print: byKind('print') },
      held_out_false_alarms_by_profile: falseAlarmsByProfile,
    },
    limits: [
      chooseLimit('blur', 'below', 'blur', calibration, heldOut, options.maxFlaggedReadable, [
        0,
        25,
        50,
        100,
        200,
        400,
        800,
        1600,
        Infinity,
      ]),
      chooseLimit('glare', 'above', 'glare', calibration, heldOut, options.maxFlaggedReadable, [
        0,
        0.005,
        0.01,
        0.02,
        0.04,
        0.08,
        0.16,
        Infinity,
      ]),
      chooseLimit('brightness', 'below', 'low_light', calibration, heldOut, options.maxFlaggedReadable, [
        0,
        40,
        60,
        80,
        100,
        120,
        140,
        170,
        Infinity,
      ]),
    ],
    quality_ms: [quantile(times, 0.5), quantile(times, 0.99)],
  };
}

/** The report as the TypeScript of `packages/verification/src/quality/thresholds.ts`'s constants. */
export function modelSource(report: CalibrationReport): string {
  const round = (value: number): number => Number(value.toPrecision(6));
  const lines = SCREEN_FEATURE_NAMES.map((name) => {
    const feature = report.model.features[name];
    return `    ${name}: { mean: ${round(feature.mean)}, scale: ${round(feature.scale)}, weight: ${round(feature.weight)} },`;
  });
  return [
    `  bias: ${round(report.model.bias)},`,
    '  features: {',
    ...lines,
    '  },',
    `  threshold: ${round(report.model.threshold)},`,
  ].join('\n');
}
