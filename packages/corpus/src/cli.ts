#!/usr/bin/env node
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CALIBRATION, calibrate, modelSource, type CalibrationReport, type Rates } from './calibrate';
import {
  DEFAULT_ANGLE_CALIBRATION,
  applyAngleLimits,
  calibrateAngle,
  chooseAngleLimits,
  type AngleCalibrationReport,
} from './calibrate-angle';
import { DEFAULT_DEFECTS, DEFECTS, DOCUMENT_VARIANTS, type Defect, type DocumentVariant } from './documents';
import {
  DEFAULT_GENERATE_OPTIONS,
  DEGRADATION_PROFILES,
  generateDocumentImages,
  type DegradationProfile,
  type GenerateOptions,
} from './generate';

const USAGE = `Usage: node packages/corpus/dist/cli.js generate --seed N --count N --out DIR [options]
       node packages/corpus/dist/cli.js calibrate [--count N] [--jobs N] [--calibration-seed N] [--held-out-seed N] [--recapture-only]
       node packages/corpus/dist/cli.js calibrate-angle [--count N] [--calibration-seed N] [--held-out-seed N] [--report FILE]

Writes N documents (one JPEG per side, DNI and licence two sides, passports one) and DIR/labels.jsonl,
one label per image. The same seed gives the same bytes; document i is the same whatever the count.

Options:
  --seed N               seed of the corpus (required)
  --count N              number of documents (required)
  --start N              index of the first document (default 0)
  --indices LIST         comma-separated document indices instead of --start/--count
  --out DIR              output folder (required; created)
  --degradations LIST    comma-separated profiles (default all): ${DEGRADATION_PROFILES.join(', ')}
  --variants LIST        comma-separated document variants (default all): ${DOCUMENT_VARIANTS.join(', ')}
  --width N --height N   image size in pixels (default ${DEFAULT_GENERATE_OPTIONS.width}×${DEFAULT_GENERATE_OPTIONS.height})
  --reference-date D     date the expected verdicts hold at (default ${DEFAULT_GENERATE_OPTIONS.referenceDate})
  --defect-rate P        share of documents with a deliberate defect (default ${DEFAULT_GENERATE_OPTIONS.defectRate})
  --expired-rate P       share of expired documents (default ${DEFAULT_GENERATE_OPTIONS.expiredRate})
  --defects LIST         comma-separated defects that may be drawn (default ${DEFAULT_DEFECTS.join(', ')}): ${DEFECTS.join(', ')}
  --retakes N            also N retakes of each document's photos (the same card photographed again, files ending -retake<n>)
  --quiet                no progress on stderr

calibrate: fits the recapture model and the blur/glare/darkness limits on a calibration split and
reports them on a held-out split (defaults: seeds ${DEFAULT_CALIBRATION.calibrationSeed} and ${DEFAULT_CALIBRATION.heldOutSeed}, ${DEFAULT_CALIBRATION.count} documents each,
${DEFAULT_CALIBRATION.jobs} threads). Images are cached in bench/results/corpus/, read results and the report in
bench/results/calibration/. --recapture-only reads no photo (reading is most of a first run's time) and
so leaves the capture limits out.

calibrate-angle: chooses the angled front's limits (a copy of the front; a card not tilted) on the fronts
of --count documents per variant of each seed (defaults ${DEFAULT_ANGLE_CALIBRATION.count}, seeds ${DEFAULT_ANGLE_CALIBRATION.seed} and ${DEFAULT_ANGLE_CALIBRATION.seed + 1001}), and reports them on the held-out seed;
the report goes to bench/results/calibration/angle-*.json (--report summarises one again, measuring nothing).`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function integer(value: string | undefined, name: string, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) fail(`--${name} is required`);
    return fallback;
  }
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) fail(`--${name} must be a non-negative integer`);
  return parsed;
}

function list<T extends string>(value: string | undefined, allowed: readonly T[], name: string): readonly T[] {
  if (value === undefined) return allowed;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const unknown = items.filter((item) => !(allowed as readonly string[]).includes(item));
  if (unknown.length > 0 || items.length === 0)
    fail(`--${name}: unknown ${unknown.join(', ') || '(empty)'}; choose from ${allowed.join(', ')}`);
  return items as T[];
}

function range(values: { start?: string; count?: string }): number[] {
  const start = integer(values.start, 'start', 0);
  return Array.from({ length: integer(values.count, 'count') }, (_, offset) => start + offset);
}

function rate(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!(parsed >= 0 && parsed <= 1)) fail(`--${name} must be between 0 and 1`);
  return parsed;
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === '--help' || command === '-h' || command === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === 'calibrate') {
    await runCalibration(rest);
    return;
  }
  if (command === 'calibrate-angle') {
    await runAngleCalibration(rest);
    return;
  }
  if (command !== 'generate') fail(`unknown command ${command}`);
  const { values } = parseArgs({
    args: rest,
    options: {
      seed: { type: 'string' },
      count: { type: 'string' },
      start: { type: 'string' },
      indices: { type: 'string' },
      out: { type: 'string' },
      degradations: { type: 'string' },
      variants: { type: 'string' },
      width: { type: 'string' },
      height: { type: 'string' },
      'reference-date': { type: 'string' },
      'defect-rate': { type: 'string' },
      'expired-rate': { type: 'string' },
      defects: { type: 'string' },
      retakes: { type: 'string' },
      quiet: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.out === undefined) fail('--out is required');
  const referenceDate = values['reference-date'] ?? DEFAULT_GENERATE_OPTIONS.referenceDate;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(referenceDate)) fail('--reference-date must be YYYY-MM-DD');
  const options: GenerateOptions = {
    seed: integer(values.seed, 'seed'),
    width: integer(values.width, 'width', DEFAULT_GENERATE_OPTIONS.width),
    height: integer(values.height, 'height', DEFAULT_GENERATE_OPTIONS.height),
    referenceDate,
    defectRate: rate(values['defect-rate'], 'defect-rate', DEFAULT_GENERATE_OPTIONS.defectRate),
    expiredRate: rate(values['expired-rate'], 'expired-rate', DEFAULT_GENERATE_OPTIONS.expiredRate),
    variants: list<DocumentVariant>(values.variants, DOCUMENT_VARIANTS, 'variants'),
    profiles: list<DegradationProfile>(values.degradations, DEGRADATION_PROFILES, 'degradations'),
    ...(values.defects === undefined ? {} : { defects: list<Defect>(values.defects, DEFECTS, 'defects') }),
  };
  const retakes = integer(values.retakes, 'retakes', 0);
  if (options.width < 64 || options.height < 48) fail('the image must be at least 64×48');
  const indices =
    values.indices !== undefined ? values.indices.split(',').map((item) => integer(item.trim(), 'indices')) : range(values);
  const out = path.resolve(values.out);
  fs.mkdirSync(out, { recursive: true });
  const labels: string[] = [];
  const started = performance.now();
  for (const [position, index] of indices.entries()) {
    for (let photo = 0; photo <= retakes; photo += 1) {
      for (const { image, label } of await generateDocumentImages(index, options, photo)) {
        fs.writeFileSync(path.join(out, label.file), image);
        labels.push(JSON.stringify(label));
      }
    }
    if (values.quiet !== true) process.stderr.write(`\r[corpus] ${position + 1}/${indices.length} documents`);
  }
  fs.writeFileSync(path.join(out, 'labels.jsonl'), labels.length === 0 ? '' : `${labels.join('\n')}\n`);
  fs.writeFileSync(path.join(out, 'corpus.json'), `${JSON.stringify({ ...options, indices, images: labels.length }, null, 2)}\n`);
  if (values.quiet !== true) {
    process.stderr.write(
      `\n[corpus] ${labels.length} images in ${((performance.now() - started) / 1000).toFixed(1)} s → ${out}\n`,
    );
  }
}

const percent = (value: number): string => `${(100 * value).toFixed(1)}%`;

function printReport(report: CalibrationReport): void {
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  const { calibration, held_out: heldOut, held_out_by_kind: byKind, cross_validated: cv } = report.screen;
  const rates = (r: Rates): string =>
    `detection ${r.detected}/${r.recaptures} (${percent(r.detection_rate)}), false alarms ${r.false_alarms}/${r.originals} (${percent(r.false_alarm_rate)})`;
  const model = report.model;
  const inputs = Object.entries(model.features)
    .filter(([, feature]) => feature.weight !== 0)
    .map(([name]) => name);
  out(
    `recapture model: score ≥ ${model.threshold.toPrecision(4)} on photos with log10(1 + blur) ≥ ${model.minLogBlur} (targets met out of fold on the calibration split: ${report.threshold_met_on_calibration})`,
  );
  out(`  inputs: ${inputs.join(', ')}`);
  out(`  periodic evidence reported (decides nothing) at a comb-free peak ≥ ${model.periodicThreshold.toPrecision(3)}`);
  out('  candidates (out of fold on the calibration split; detection at the false-alarm limit):');
  for (const candidate of report.screen.candidates)
    out(
      `    ${candidate.feature_set} gate ${candidate.min_log_blur} λ ${candidate.lambda}: ${percent(candidate.cv_detection_at_limit)}; at its threshold ${rates(candidate.cv)}`,
    );
  out(`  calibration seed ${report.options.calibrationSeed}, out of fold: ${rates(cv)}`);
  out(`  calibration seed ${report.options.calibrationSeed}, refitted (in-sample): ${rates(calibration)}`);
  out(`  held-out seed ${report.options.heldOutSeed}: ${rates(heldOut)}`);
  for (const kind of ['screen', 'print'] as const)
    out(`    ${kind}: ${byKind[kind].detected}/${byKind[kind].recaptures} (${percent(byKind[kind].detection_rate)})`);
  out(
    `    at fixed false alarms (threshold moved): ${report.screen.held_out_curve
      .map((point) => `${point.detected}/${point.recaptures} at ${point.false_alarms}/${heldOut.originals}`)
      .join(', ')}`,
  );
  const [periodicRecaptures, periodicOriginals] = report.screen.held_out_periodic_reported;
  out(
    `    periodic evidence reported: ${periodicRecaptures}/${heldOut.recaptures} recaptures, ${periodicOriginals}/${heldOut.originals} originals`,
  );
  const { originals: unjudgedOriginals, recaptures: unjudgedRecaptures } = report.screen.held_out_unjudged;
  out(
    `    not judged (too blurred for the model): ${unjudgedOriginals[0]}/${unjudgedOriginals[1]} originals, ${unjudgedRecaptures[0]}/${unjudgedRecaptures[1]} recaptures`,
  );
  out(
    `    false alarms by profile: ${Object.entries(report.screen.held_out_false_alarms_by_profile)
      .map(([profile, [flagged, total]]) => `${profile} ${flagged}/${total}`)
      .join(', ')}`,
  );
  for (const limit of report.limits) {
    const [fc, nc, fh, nh] = limit.flagged_readable;
    const [cc, uc, ch, uh] = limit.caught_unreadable;
    out(
      `${limit.measure} ${limit.direction} ${limit.limit.toPrecision(4)}: flags readable ${fc}/${nc} (cal), ${fh}/${nh} (held-out); catches unreadable ${cc}/${uc} (cal), ${ch}/${uh} (held-out)`,
    );
    out(
      `  read rate: ${limit.curve.map((bin) => `[${bin.from}, ${bin.to}) ${bin.photos === 0 ? '-' : percent(bin.read_rate)} of ${bin.photos}`).join('; ')}`,
    );
  }
  out(
    `assessQuality p50 ${report.quality_ms[0].toFixed(0)} ms, p99 ${report.quality_ms[1].toFixed(0)} ms (held-out, at ${report.options.width}×${report.options.height})`,
  );
  out('\nSCREEN_MODEL for packages/verification/src/calibration/thresholds.ts:\n{');
  out(modelSource(report));
  out('}');
}

async function runCalibration(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      count: { type: 'string' },
      jobs: { type: 'string' },
      'calibration-seed': { type: 'string' },
      'held-out-seed': { type: 'string' },
      'cache-dir': { type: 'string' },
      'recapture-only': { type: 'boolean' },
    },
    strict: true,
  });
  const results = path.join(__dirname, '..', '..', '..', 'bench', 'results');
  const cacheDir = path.resolve(values['cache-dir'] ?? path.join(results, 'calibration'));
  const report = await calibrate({
    ...DEFAULT_CALIBRATION,
    count: integer(values.count, 'count', DEFAULT_CALIBRATION.count),
    jobs: Math.max(1, integer(values.jobs, 'jobs', DEFAULT_CALIBRATION.jobs)),
    calibrationSeed: integer(values['calibration-seed'], 'calibration-seed', DEFAULT_CALIBRATION.calibrationSeed),
    heldOutSeed: integer(values['held-out-seed'], 'held-out-seed', DEFAULT_CALIBRATION.heldOutSeed),
    readProfiles: values['recapture-only'] === true ? [] : DEFAULT_CALIBRATION.readProfiles,
    cacheDir,
    corpusRoot: path.resolve(values['cache-dir'] ?? results, 'corpus'),
    log: (line) => process.stderr.write(`[calibrate] ${line}\n`),
  });
  fs.mkdirSync(cacheDir, { recursive: true });
  const file = path.join(
    cacheDir,
    `report-s${report.options.calibrationSeed}-s${report.options.heldOutSeed}-n${report.options.count}.json`,
  );
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  printReport(report);
  process.stderr.write(`[calibrate] report: ${file}\n`);
}

async function runAngleCalibration(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      count: { type: 'string' },
      'calibration-seed': { type: 'string' },
      'held-out-seed': { type: 'string' },
      report: { type: 'string' },
    },
    strict: true,
  });
  let calibration: AngleCalibrationReport;
  let heldOut: AngleCalibrationReport;
  if (values.report !== undefined) {
    // The measures of an earlier run, summarised again (the limits' rule changed, not the photos).
    ({ calibration, held_out: heldOut } = JSON.parse(fs.readFileSync(values.report, 'utf8')) as {
      calibration: AngleCalibrationReport;
      held_out: AngleCalibrationReport;
    });
  } else {
    const count = integer(values.count, 'count', DEFAULT_ANGLE_CALIBRATION.count);
    const reports: AngleCalibrationReport[] = [];
    for (const seed of [
      integer(values['calibration-seed'], 'calibration-seed', DEFAULT_ANGLE_CALIBRATION.seed),
      integer(values['held-out-seed'], 'held-out-seed', DEFAULT_ANGLE_CALIBRATION.seed + 1001),
    ]) {
      reports.push(
        await calibrateAngle({
          ...DEFAULT_ANGLE_CALIBRATION,
          seed,
          count,
          log: (line) => process.stderr.write(`[calibrate-angle] seed ${seed}: ${line}\n`),
        }),
      );
    }
    [calibration, heldOut] = reports as [AngleCalibrationReport, AngleCalibrationReport];
  }
  const seeds = [calibration.options.seed, heldOut.options.seed] as const;
  const count = calibration.options.count;
  const limits = chooseAngleLimits(calibration);
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  const range = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length === 0
      ? '-'
      : `${sorted[0]}–${sorted[sorted.length - 1]} (median ${sorted[Math.floor(sorted.length / 2)]})`;
  };
  out(
    `limits: maxCopyDistance ${limits.maxCopyDistance}, minOutlineChange ${limits.minOutlineChange} (chosen on seed ${seeds[0]})`,
  );
  for (const [name, report] of [
    ['calibration', calibration],
    ['held out', heldOut],
  ] as const) {
    const applied = applyAngleLimits(report, limits);
    out(
      `\n${name}: seed ${report.options.seed}, ${report.options.count} documents of each of ${report.options.variants.join(', ')}`,
    );
    out(
      '| pairs with the front | n | likeness distance | 64-bit hash (bits) | outline found | outline change | refused: copy / not tilted |',
    );
    out('| --- | --- | --- | --- | --- | --- | --- |');
    const kinds = [...new Set(report.pairs.map((pair) => pair.kind))];
    for (const kind of kinds) {
      const pairs = report.pairs.filter((pair) => pair.kind === kind);
      const [copies, flat, total, measured] = applied.refused[kind] ?? [0, 0, 0, 0];
      out(
        `| ${kind} | ${total} | ${range(pairs.map((pair) => pair.distance))} | ${range(pairs.map((pair) => pair.hash_distance))} | ${measured}/${total} | ${range(pairs.flatMap((pair) => (pair.outline_change === null ? [] : [pair.outline_change])))} | ${copies} / ${flat} |`,
      );
    }
    out(
      `| another card of the variant (nearest) | ${report.nearest_other_card.length} | ${range(report.nearest_other_card.map((other) => other.distance))} | ${range(report.nearest_other_card.map((other) => other.hash_distance))} | | | |`,
    );
    out(
      `genuine angled fronts refused: ${applied.genuine_refused.length}/${report.pairs.filter((pair) => pair.kind === 'perspective').length}${applied.genuine_refused.map((pair) => `; ${pair.document} ${pair.variant} tilted ${pair.tilt_change_deg}° (distance ${pair.distance}, outline ${pair.outline_change})`).join('')}`,
    );
    const ms = [...report.outline_ms].sort((a, b) => a - b);
    out(
      `outline search: p50 ${ms[Math.floor(ms.length / 2)]?.toFixed(0)} ms, p99 ${ms[Math.floor(ms.length * 0.99)]?.toFixed(0)} ms`,
    );
  }
  const results = path.join(__dirname, '..', '..', '..', 'bench', 'results', 'calibration');
  fs.mkdirSync(results, { recursive: true });
  const file = path.join(results, `angle-s${seeds[0]}-s${seeds[1]}-n${count}.json`);
  fs.writeFileSync(file, `${JSON.stringify({ limits, calibration, held_out: heldOut }, null, 2)}\n`);
  process.stderr.write(`[calibrate-angle] report: ${file}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
