import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { SCREEN_FEATURE_NAMES, screenScore, type ScreenFeatureName, type ScreenModel } from '@idv/verification';

type ModelFeatures = Record<ScreenFeatureName, number>;

// The fit's loops call these millions of times: aliased once, because a global lookup per call is slow
// wherever the global object is not the realm's own (jest runs tests in such a context).
const { exp, log, max, min, sqrt } = Math;
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
 * - Recapture (see packages/verification/src/quality/screen.ts for the two kinds of evidence): the
 *   periodic-peak threshold that spends at most `periodicFalseAlarm` of the false alarms; then, for each
 *   candidate sharpness below which the colour-and-tone model does not judge, a class-balanced logistic
 *   model (L2) fitted on the photos it judges, and its threshold between the lowest that keeps all
 *   false alarms at or below `maxFalseAlarm` and the highest that still detects `minDetection` of the
 *   recaptures (midway in the logit when both can be met). The candidate that detects most at the
 *   false-alarm limit is kept. All of it on the calibration split.
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
  /** The share of originals the periodic evidence alone may flag (part of `maxFalseAlarm`). */
  periodicFalseAlarm: number;
  minDetection: number;
  maxFlaggedReadable: number;
  log: (line: string) => void;
}

export const DEFAULT_CALIBRATION: Omit<CalibrationOptions, 'cacheDir' | 'corpusRoot' | 'log'> = {
  calibrationSeed: 1001,
  heldOutSeed: 2002,
  count: 400,
  jobs: 2,
  readProfiles: ['clean', 'blur', 'glare', 'low_light'],
  width: DEFAULT_GENERATE_OPTIONS.width,
  height: DEFAULT_GENERATE_OPTIONS.height,
  maxFalseAlarm: 0.02,
  periodicFalseAlarm: 0.005,
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
  await Promise.all(Array.from({ length: max(1, min(jobs, tasks.length)) }, runWorker));
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
  // The measured rows too, for looking into the figures (not read back: features are always measured afresh).
  fs.writeFileSync(
    path.join(options.cacheDir, `rows-s${seed}-n${options.count}.jsonl`),
    `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`,
  );
  return rows;
}

const featuresOf = (row: CalibrationRow): ModelFeatures => row.quality.features as ModelFeatures;
const logit = (p: number): number => log(max(p, 1e-12) / max(1 - p, 1e-12));
const sigmoid = (z: number): number => 1 / (1 + exp(-z));

/** Class-balanced logistic regression with an L2 penalty, by plain gradient descent (deterministic). */
export function fitLogistic(rows: readonly CalibrationRow[]): Pick<ScreenModel, 'bias' | 'features'> {
  const names = SCREEN_FEATURE_NAMES;
  const stats = names.map((name) => {
    const values = rows.map((row) => featuresOf(row)[name]);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
    return { mean, scale: sqrt(variance) || 1 };
  });
  const x = rows.map((row) =>
    names.map((name, column) => (featuresOf(row)[name] - (stats[column]?.mean ?? 0)) / (stats[column]?.scale ?? 1)),
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
      const error = (sigmoid(z) - (y[row] ?? 0)) * (sampleWeight[row] ?? 1);
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
  ) as ScreenModel['features'];
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

/** Whether the model flags the row, as `screenVerdict` decides. */
export function flags(row: CalibrationRow, model: ScreenModel): boolean {
  const features = featuresOf(row);
  if (features.luma_periodic >= model.periodicThreshold) return true;
  return features.log_blur >= model.minLogBlur && screenScore(features, model) >= model.threshold;
}

export function rates(rows: readonly CalibrationRow[], model: ScreenModel): Rates {
  let detected = 0;
  let recaptures = 0;
  let falseAlarms = 0;
  let originals = 0;
  for (const row of rows) {
    const flagged = flags(row, model);
    if (row.recapture === null) {
      originals += 1;
      if (flagged) falseAlarms += 1;
    } else {
      recaptures += 1;
      if (flagged) detected += 1;
    }
  }
  return {
    detected,
    recaptures,
    false_alarms: falseAlarms,
    originals,
    detection_rate: recaptures === 0 ? 0 : detected / recaptures,
    false_alarm_rate: originals === 0 ? 0 : falseAlarms / originals,
  };
}

/** The lowest value strictly above all but `allowed` of `values`. */
function aboveAllBut(values: readonly number[], allowed: number): number {
  const sorted = [...values].sort((a, b) => b - a);
  return (sorted[allowed] ?? 0) + 1e-9;
}

const SHARPNESS_CANDIDATES = [0, 1.8, 2, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6];

/** The recapture model fitted and thresholded on the calibration rows (see the module's comment). */
export function fitScreenModel(
  rows: readonly CalibrationRow[],
  options: Pick<CalibrationOptions, 'maxFalseAlarm' | 'periodicFalseAlarm' | 'minDetection'>,
): { model: ScreenModel; met: boolean } {
  const originals = rows.filter((row) => row.recapture === null);
  const recaptures = rows.filter((row) => row.recapture !== null);
  const periodicThreshold = aboveAllBut(
    originals.map((row) => featuresOf(row).luma_periodic),
    Math.floor(options.periodicFalseAlarm * originals.length),
  );
  let best: { model: ScreenModel; met: boolean; detection: number } | null = null;
  for (const minLogBlur of SHARPNESS_CANDIDATES) {
    const judged = rows.filter((row) => featuresOf(row).log_blur >= minLogBlur);
    if (judged.filter((row) => row.recapture !== null).length < 5) continue;
    const fitted = fitLogistic(judged);
    const base: ScreenModel = { ...fitted, periodicThreshold, minLogBlur, threshold: 0.5 };
    const periodic = (row: CalibrationRow): boolean => featuresOf(row).luma_periodic >= periodicThreshold;
    const colourScore = (row: CalibrationRow): number =>
      featuresOf(row).log_blur >= minLogBlur ? screenScore(featuresOf(row), base) : -1;
    // False alarms the colour model may add to the periodic ones, and recaptures it must add to reach the target.
    const falseAlarmsLeft = Math.floor(options.maxFalseAlarm * originals.length) - originals.filter(periodic).length;
    const toDetect = Math.ceil(options.minDetection * recaptures.length) - recaptures.filter(periodic).length;
    const falseAlarmLimit = aboveAllBut(originals.filter((row) => !periodic(row)).map(colourScore), max(0, falseAlarmsLeft));
    const missed = recaptures
      .filter((row) => !periodic(row))
      .map(colourScore)
      .sort((a, b) => b - a);
    const detectionLimit = toDetect <= 0 ? 1 : (missed[toDetect - 1] ?? -1);
    const met = falseAlarmsLeft >= 0 && detectionLimit >= falseAlarmLimit;
    const threshold = met ? sigmoid((logit(falseAlarmLimit) + logit(min(detectionLimit, 1 - 1e-9))) / 2) : falseAlarmLimit;
    const atLimit = rates(rows, { ...base, threshold: falseAlarmLimit }).detection_rate;
    if (best === null || atLimit > best.detection + 1e-12) best = { model: { ...base, threshold }, met, detection: atLimit };
  }
  if (best === null) throw new Error('no recaptures to calibrate on');
  return { model: best.model, met: best.met };
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
  return sorted[min(sorted.length - 1, max(0, Math.floor(q * (sorted.length - 1))))] ?? 0;
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
    /** The periodic evidence alone. */
    held_out_periodic_only: Rates;
    held_out_false_alarms_by_profile: Record<string, [number, number]>;
    /** Originals too blurred for the colour-and-tone model and without periodic evidence (not judged). */
    held_out_unjudged_originals: [number, number];
  };
  limits: LimitReport[];
  /** Milliseconds per `assessQuality` call (held-out): p50, p99. */
  quality_ms: [number, number];
}

export async function calibrate(options: CalibrationOptions): Promise<CalibrationReport> {
  const calibration = await collectRows(options.calibrationSeed, options);
  const heldOut = await collectRows(options.heldOutSeed, options);
  const { model, met } = fitScreenModel(calibration, options);
  const byKind = (kind: 'screen' | 'print'): Rates =>
    rates(
      heldOut.filter((row) => row.recapture === null || row.recapture === kind),
      model,
    );
  const falseAlarmsByProfile: Record<string, [number, number]> = {};
  for (const row of heldOut) {
    if (row.recapture !== null) continue;
    const entry = falseAlarmsByProfile[row.profile] ?? [0, 0];
    if (flags(row, model)) entry[0] += 1;
    entry[1] += 1;
    falseAlarmsByProfile[row.profile] = entry;
  }
  const periodicOnly: ScreenModel = { ...model, minLogBlur: Infinity };
  const unjudged = (rows: readonly CalibrationRow[]): [number, number] => {
    const originals = rows.filter((row) => row.recapture === null);
    return [
      originals.filter(
        (row) => featuresOf(row).log_blur < model.minLogBlur && featuresOf(row).luma_periodic < model.periodicThreshold,
      ).length,
      originals.length,
    ];
  };
  const times = heldOut.map((row) => row.quality.ms).sort((a, b) => a - b);
  const { log: _log, cacheDir: _cacheDir, corpusRoot: _corpusRoot, ...reported } = options;
  return {
    options: reported,
    model,
    threshold_met_on_calibration: met,
    screen: {
      calibration: rates(calibration, model),
      held_out: rates(heldOut, model),
      held_out_by_kind: { screen: byKind('screen'), print: byKind('print') },
      held_out_periodic_only: rates(heldOut, periodicOnly),
      held_out_false_alarms_by_profile: falseAlarmsByProfile,
      held_out_unjudged_originals: unjudged(heldOut),
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
