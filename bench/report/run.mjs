#!/usr/bin/env node
// The load report: `node bench/report/run.mjs [--quick] [--only gateway,sessions] [--out DIR]` (after
// `pnpm exec turbo run build`, with PostgreSQL, RabbitMQ and Redis up: scripts/ensure-infra.sh).
//
// Runs every benchmark of bench/ at a few load levels through its own flags (each run bounded: short
// durations and small counts, the whole report about 10 minutes on a 2-core machine), collects throughput and
// latency against load from the figures each benchmark hands over (bench/report/result.mjs: BENCH_RESULT_FILE,
// and BENCH_NO_WRITE=1 so that no benchmark rewrites its own figures in docs/), and writes one markdown page
// with a plot per component (SVG, drawn by bench/report/svg.mjs) and the machine yardstick of the same run
// (bench/machine-reference.mjs). Default output: docs/load-report.md and docs/load-report/*.svg.
// `--quick` runs one tiny level per benchmark to check the report itself (output in .run/load-report/).
// Each run's output is kept in .run/load-report-logs/. Run it on a quiet machine: the figures share two cores
// with whatever else runs. Each run also writes docs/load-report/figures.json, compares it with the committed one
// through the yardstick (bench/report/compare.mjs; red past 15 %) and rewrites the README's benchmark table
// (bench/report/README.md, "The guard"). `--from-logs` does only that, from the last run's results.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineReference } from '../machine-reference.mjs';
import {
  comparisonHeadline,
  comparisonMarkdown,
  comparisonText,
  compareFigures,
  replaceBetweenMarkers,
  summaryTable,
  wantsColour,
} from './compare.mjs';
import { chart } from './svg.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(ROOT, 'package.json'));
const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string' },
    'from-logs': { type: 'boolean', default: false },
    baseline: { type: 'string' },
  },
});
const QUICK = args.quick;
const OUT = path.resolve(args.out ?? (QUICK ? path.join(ROOT, '.run', 'load-report') : path.join(ROOT, 'docs')));
const IMAGES = path.join(OUT, 'load-report');
// A quick run's results apart, so that they never pass for a full run's (`--from-logs`).
const LOGS = path.join(ROOT, '.run', 'load-report-logs', ...(QUICK ? ['quick'] : []));
const FIGURES = path.join(IMAGES, 'figures.json');
/** The committed figures every run is compared with (read from git's HEAD, not from the working copy). */
const BASELINE = 'docs/load-report/figures.json';
const log = (message) => process.stderr.write(`[report] ${message}\n`);
const round = (value, digits = 1) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

/**
 * Each component: the benchmark, the load it is measured against (one of its own flags or variables), the
 * levels, how one level is run, and which of its figures are throughput and which latency.
 */
const COMPONENTS = [
  {
    name: 'gateway',
    script: 'bench/gateway/run.mjs',
    load: 'keep-alive connections',
    levels: QUICK ? [2] : [1, 4, 16],
    timeoutS: 120,
    run: (level) => ({
      args: ['--connections', String(level), '--duration', QUICK ? '1' : '3', '--repeat', '1', '--no-write'],
    }),
    what: 'authenticated `GET /v1/verification-sessions?limit=1` through the gateway and straight to the sessions service (autocannon)',
    throughput: { unit: 'requests/s', of: (r) => ({ 'through the gateway': r.gateway.rps, direct: r.direct.rps }) },
    latency: {
      unit: 'ms',
      of: (r) => ({ 'p50 gateway': r.gateway.p50, 'p99 gateway': r.gateway.p99, 'p99 direct': r.direct.p99 }),
    },
  },
  {
    name: 'sessions',
    script: 'bench/sessions/run.mjs',
    load: 'connections',
    levels: QUICK ? [5] : [5, 20, 50],
    timeoutS: 150,
    run: (level) => ({ env: { BENCH_CONNECTIONS: String(level), BENCH_SECONDS: QUICK ? '1' : '3' } }),
    what: 'session creates with an Idempotency-Key and reads of one session through the gateway, max throughput (autocannon)',
    throughput: {
      unit: 'requests/s',
      of: (r) => ({
        'create (Idempotency-Key)': pick(r, 'create (Idempotency-Key)').rps,
        'GET one session': pick(r, 'GET /v1/verification-sessions/{id}').rps,
      }),
    },
    latency: {
      unit: 'ms',
      of: (r) => ({
        'p50 create': pick(r, 'create (Idempotency-Key)').p50,
        'p99 create': pick(r, 'create (Idempotency-Key)').p99,
        'p99 GET': pick(r, 'GET /v1/verification-sessions/{id}').p99,
      }),
    },
  },
  {
    name: 'flow',
    script: 'bench/flow/run.mjs',
    load: 'concurrent persons',
    levels: QUICK ? [2] : [5, 15, 30],
    timeoutS: 180,
    run: (level) => ({ env: { BENCH_PERSONS: String(level), BENCH_FLOWS: String(QUICK ? 4 : level * 8) } }),
    what: 'whole live flows over HTTP: link, consent, e-mail code through a local SMTP sink, form, approved',
    throughput: { unit: 'complete flows/s', of: (r) => ({ flows: r.flowsPerSecond }) },
    latency: { unit: 'ms', of: (r) => ({ 'p99 step submission': r.p99Submission, 'p50 whole flow': r.p50Flow }) },
  },
  {
    name: 'webhooks',
    script: 'bench/webhooks/run.mjs',
    load: 'cancels per second (events/s)',
    levels: QUICK ? [10] : [25, 50, 100],
    timeoutS: 180,
    run: (level) => ({ env: { BENCH_PHASES: 'B', BENCH_RATE: String(level), BENCH_SECONDS: QUICK ? '2' : '4' } }),
    what: 'cancel through the API → signed webhook answered 2xx by a local receiver, at a fixed rate (phase B)',
    fixedRate: true,
    throughput: { unit: 'deliveries/s', of: (r) => ({ delivered: r.B.delivered / r.seconds }) },
    latency: { unit: 'ms', of: (r) => ({ p50: r.B.p50, p99: r.B.p99 }) },
  },
  {
    name: 'dashboard',
    script: 'bench/dashboard/run.mjs',
    load: 'signed-in owners clicking without pause',
    levels: QUICK ? [2] : [4, 8, 16],
    timeoutS: 150,
    run: (level) => ({
      env: { BENCH_USERS: String(level), BENCH_ROUNDS: QUICK ? '1' : '2', BENCH_THINK_MS: '0', BENCH_WARMUP_ROUNDS: '1' },
    }),
    what: 'the signed-in pages (home, projects, flow editor, JSON, history, keys, usage), server time as the client sees it',
    throughput: { unit: 'pages/s', of: (r) => ({ pages: r.pagesPerSecond }) },
    latency: { unit: 'ms', of: (r) => ({ p50: r.p50, p95: r.p95 }) },
  },
  {
    name: 'documents',
    script: 'bench/documents/run.mjs',
    load: 'reading threads',
    levels: QUICK ? [1] : [1, 2],
    timeoutS: 240,
    run: (level) => ({ args: ['--workers', String(level), '--count', QUICK ? '2' : '12'] }),
    what: "generated identity documents read side by side with the service's code path (`read_side`, `combineSides`)",
    throughput: { unit: 'documents/s', of: (r) => ({ documents: r.documentsPerSecond }) },
    latency: {
      unit: 'ms',
      of: (r) => ({ 'p50 whole document': r.p50, 'p50 last side + checks': r.lastP50, 'p99 one side': r.sideP99 }),
    },
  },
  {
    name: 'faces',
    script: 'bench/faces/run.mjs',
    load: "face threads (0: the process's own thread)",
    levels: QUICK ? [1] : [0, 1, 2],
    timeoutS: 240,
    run: (level) => ({ args: ['--threads', String(level), '--count', QUICK ? '2' : '8'] }),
    what: 'face steps (liveness and the document comparison) judged one after another by `judgeFaceStep`',
    throughput: { unit: 'face steps/s', of: (r) => ({ 'face steps': r.sequencesPerSecond }) },
    latency: { unit: 'ms', of: (r) => ({ 'p50 step': r.p50, 'p99 step': r.p99 }) },
  },
  {
    name: 'verification',
    script: 'bench/verification/run.mjs',
    load: 'verifications in flight',
    levels: QUICK ? [1] : [1, 4],
    timeoutS: 420,
    run: (level) => ({ args: ['--in-flight', String(level), '--count', String(QUICK ? 1 : level * 3), '--seconds', '120'] }),
    what: 'complete live DNI verifications through the real service: front, back and tilted front uploaded, the reading and face threads, the face compared with the document, the verdict webhook (every verdict checked)',
    throughput: { unit: 'verifications/s', of: (r) => ({ verifications: r.verificationsPerSecond }) },
    latency: {
      unit: 'ms',
      of: (r) => ({ 'p50 verdict after the last capture': r.verdictP50Ms, 'p95 verdict after the last capture': r.verdictP95Ms }),
    },
  },
];

function pick(result, prefix) {
  return result.results.find((entry) => entry.name.startsWith(prefix)) ?? { rps: null, p50: null, p99: null };
}

/** One benchmark run in its own process group (so a run past its time is stopped with every service it started). */
function runBenchmark(component, level) {
  const { args: extra = [], env = {} } = component.run(level);
  const resultFile = path.join(LOGS, `${component.name}-${level}.json`);
  const logFile = path.join(LOGS, `${component.name}-${level}.log`);
  rmSync(resultFile, { force: true });
  const fd = openSync(logFile, 'w');
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, component.script), ...extra], {
    cwd: ROOT,
    env: { ...process.env, ...env, BENCH_RESULT_FILE: resultFile, BENCH_NO_WRITE: '1' },
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  closeSync(fd);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      log(`${component.name} at ${level}: over ${component.timeoutS} s, stopped`);
      try {
        process.kill(-child.pid, 'SIGTERM');
        setTimeout(() => {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }, 5_000).unref();
      } catch {
        // already gone
      }
    }, component.timeoutS * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      if (code === 0 && existsSync(resultFile)) {
        resolve({ level, seconds, result: JSON.parse(readFileSync(resultFile, 'utf8')) });
      } else {
        const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' ').slice(0, 300);
        resolve({ level, seconds, error: `exited ${code ?? signal}: ${tail}` });
      }
    });
  });
}

function seriesOf(runs, figures) {
  const byName = new Map();
  for (const run of runs) {
    if (!run.result) continue;
    let values;
    try {
      values = figures.of(run.result);
    } catch {
      continue;
    }
    for (const [name, value] of Object.entries(values)) {
      if (!byName.has(name)) byName.set(name, []);
      byName.get(name).push([run.level, Number(value)]);
    }
  }
  return [...byName].map(([name, points]) => ({ name, points }));
}

function section(component, runs) {
  const throughput = seriesOf(runs, component.throughput);
  const latency = seriesOf(runs, component.latency);
  const image = `${component.name}.svg`;
  const ok = runs.filter((run) => run.result);
  if (ok.length > 0) {
    writeFileSync(
      path.join(IMAGES, image),
      chart([
        { title: `${component.name}: throughput`, xLabel: component.load, yLabel: component.throughput.unit, series: throughput },
        { title: `${component.name}: latency`, xLabel: component.load, yLabel: component.latency.unit, series: latency },
      ]),
    );
  }
  const names = [
    ...throughput.map((s) => `${s.name} (${component.throughput.unit})`),
    ...latency.map((s) => `${s.name} (${component.latency.unit})`),
  ];
  const all = [...throughput, ...latency];
  const rows = runs.map((run) => {
    if (!run.result) return `| ${run.level} | ${names.map(() => '–').join(' | ')} | failed: ${run.error.replace(/\|/g, '/')} |`;
    const cells = all.map((s) => {
      const point = s.points.find(([x]) => x === run.level);
      return point && Number.isFinite(point[1]) ? String(round(point[1])) : '–';
    });
    return `| ${run.level} | ${cells.join(' | ')} | ${run.seconds.toFixed(0)} s |`;
  });
  return [
    `## ${component.name}`,
    '',
    `\`${component.script}\`: ${component.what}; load: ${component.load}.`,
    '',
    ok.length > 0
      ? `![${component.name}: throughput and latency against load](load-report/${image})`
      : '_No level ran to the end._',
    '',
    `| ${component.load} | ${names.join(' | ')} | run |`,
    `| ${['---', ...names.map(() => '---:'), '---'].join(' | ')} |`,
    ...rows,
    '',
  ].join('\n');
}

const significant = (value) =>
  value === null || value === undefined || !Number.isFinite(Number(value)) ? null : Number(Number(value).toPrecision(4));

/** One component's entry in figures.json: each level's throughput and latency figures, or why it failed. */
function componentFigures(component, runs, { date, yardstick }) {
  const levels = {};
  for (const run of runs) {
    if (!run.result) {
      levels[run.level] = { failed: run.error.slice(0, 160) };
      continue;
    }
    const figures = {};
    for (const kind of ['throughput', 'latency']) {
      let values = {};
      try {
        values = component[kind].of(run.result);
      } catch {
        // a result without this figure: left out, shown as missing by the comparison
      }
      figures[kind] = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, significant(value)]));
    }
    levels[run.level] = figures;
  }
  return {
    date,
    yardstick,
    load: component.load,
    fixedRate: Boolean(component.fixedRate),
    units: { throughput: component.throughput.unit, latency: component.latency.unit },
    levels,
  };
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** The figures committed at git's HEAD (so a run that rewrote the working copy still compares with them). */
function committedFigures() {
  if (args.baseline) return readJson(path.resolve(args.baseline));
  try {
    const text = execFileSync('git', ['show', `HEAD:${BASELINE}`], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function formatted(text, file, parser) {
  const prettier = require('prettier');
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(text, { ...options, parser });
}

/** The README's table (between its bench:start and bench:end markers) from figures.json. */
async function writeSummary(figures) {
  const file = path.join(ROOT, 'README.md');
  const next = replaceBetweenMarkers(readFileSync(file, 'utf8'), await formatted(summaryTable(figures), file, 'markdown'));
  if (next === null) log('README.md has no bench:start / bench:end markers: its table left alone');
  else writeFileSync(file, next);
}

/**
 * The guard: compares this run's figures with the committed ones and prints the comparison (worse in red,
 * better in green on a terminal), writes figures.json (after `--only`, the other components as the working
 * copy has them) and, for a full run into docs/, the README's table. Returns the page's section.
 */
async function guard(current) {
  const baseline = committedFigures();
  const rows = baseline ? compareFigures(baseline, current) : [];
  const source = args.baseline ? `\`${args.baseline}\`` : `\`${BASELINE}\` at git's HEAD`;
  const headline = comparisonHeadline(baseline, current, rows, { source });
  process.stdout.write(`\n${headline}\n`);
  if (rows.length > 0) process.stdout.write(`${comparisonText(rows, { colour: wantsColour(process.stdout, process.env) })}\n`);
  const previous = args.only ? readJson(FIGURES) : null;
  const components = {};
  for (const { name } of COMPONENTS) {
    const entry = current.components[name] ?? previous?.components?.[name];
    if (entry) components[name] = entry;
  }
  const merged = { ...current, components };
  writeFileSync(FIGURES, await formatted(JSON.stringify(merged), FIGURES, 'json'));
  if (!QUICK && OUT === path.join(ROOT, 'docs')) await writeSummary(merged);
  log(`written: ${path.relative(ROOT, FIGURES)}`);
  return [
    '## Against the committed figures',
    '',
    headline,
    ...(rows.length > 0
      ? [
          '',
          'Each figure against the same one (component, load, name) committed last, first as measured, then through the',
          "yardstick of each run (a throughput as its share of the yardstick, a latency times it; webhooks' fixed-rate",
          'throughput as measured): ▼ worse and ▲ better by more than 15 % (latencies within 1 ms count as unchanged).',
          '',
          comparisonMarkdown(rows),
        ]
      : []),
    '',
  ].join('\n');
}

const commandLine = () => `node bench/report/run.mjs${QUICK ? ' --quick' : ''}${args.only ? ` --only ${args.only}` : ''}`;

/** The date, yardstick and kind of the run whose page is in OUT (for logs older than run.json). */
function runOfPage() {
  const page = existsSync(path.join(OUT, 'load-report.md')) ? readFileSync(path.join(OUT, 'load-report.md'), 'utf8') : '';
  const date = /\bon (\d{4}-\d{2}-\d{2})\b/.exec(page)?.[1];
  const yardstick = /\*\*([\d,]+)\*\* before the runs,\s*([\d,]+) after/.exec(page);
  if (!date || !yardstick) return null;
  const count = (text) => Number(text.replace(/,/g, ''));
  return {
    date,
    quick: page.includes('run.mjs --quick'),
    yardstick: { before: count(yardstick[1]), after: count(yardstick[2]) },
  };
}

/** `--from-logs`: figures.json and the README's table again from the results the last run left in LOGS. */
async function fromLogs(components) {
  const run = readJson(path.join(LOGS, 'run.json')) ?? runOfPage();
  if (!run) throw new Error(`no ${path.relative(ROOT, LOGS)}/run.json and no yardstick in the page to take the run's from`);
  if (Boolean(run.quick) !== QUICK) throw new Error(`the logs are of a run ${run.quick ? 'with' : 'without'} --quick`);
  log(
    `figures of the run of ${run.date} from ${path.relative(ROOT, LOGS)} (yardstick ${run.yardstick.before} / ${run.yardstick.after})`,
  );
  const current = { command: commandLine(), date: run.date, components: {} };
  const ranThen = run.only ? new Set(run.only.split(',')) : null;
  for (const component of components.filter(({ name }) => !ranThen || ranThen.has(name))) {
    const runs = component.levels.map((level) => {
      const result = readJson(path.join(LOGS, `${component.name}-${level}.json`));
      return result ? { level, result } : { level, error: 'no result in the logs' };
    });
    if (runs.some((entry) => entry.result)) current.components[component.name] = componentFigures(component, runs, run);
  }
  await guard(current);
}

async function main() {
  mkdirSync(IMAGES, { recursive: true });
  mkdirSync(LOGS, { recursive: true });
  const only = args.only ? new Set(args.only.split(',')) : null;
  const components = COMPONENTS.filter((component) => !only || only.has(component.name));
  if (args['from-logs']) return fromLogs(components);
  const started = performance.now();
  const loadBefore = os.loadavg()[0];
  log('machine yardstick…');
  const yardstickBefore = await machineReference();
  const sections = [];
  const ran = [];
  for (const component of components) {
    const runs = [];
    for (const level of component.levels) {
      log(`${component.name} at ${level} ${component.load}…`);
      const run = await runBenchmark(component, level);
      log(
        run.error
          ? `${component.name} at ${level}: ${run.error}`
          : `${component.name} at ${level}: done in ${run.seconds.toFixed(0)} s`,
      );
      runs.push(run);
    }
    sections.push(section(component, runs));
    ran.push({ component, runs });
  }
  const yardstickAfter = await machineReference();
  const date = new Date().toISOString().slice(0, 10);
  const yardstick = { before: Math.round(yardstickBefore), after: Math.round(yardstickAfter) };
  writeFileSync(path.join(LOGS, 'run.json'), `${JSON.stringify({ date, quick: QUICK, only: args.only ?? null, yardstick })}\n`);
  const current = { command: commandLine(), date, components: {} };
  for (const { component, runs } of ran)
    current.components[component.name] = componentFigures(component, runs, { date, yardstick });
  const comparison = await guard(current);
  const minutes = (performance.now() - started) / 60_000;
  const cpus = os.cpus();
  const page = [
    '# Load report',
    '',
    `Written by \`node bench/report/run.mjs${QUICK ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)} in ${minutes.toFixed(1)} minutes: every`,
    'benchmark of `bench/` at a few load levels, each run short and bounded (the benchmarks themselves, run alone with',
    'their defaults, measure longer; their own documents hold those figures). Each plot shows throughput (left) and',
    'latency (right) against the load; the tables hold the same figures and how long each run took.',
    '',
    `- Machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; every`,
    '  service, PostgreSQL, RabbitMQ, Redis and the load generator share it, loopback only.',
    `- Yardstick (\`bench/machine-reference.mjs\`: requests/s a bare node HTTP server answers over loopback, 16`,
    `  connections, best second of three): **${Math.round(yardstickBefore).toLocaleString('en-US')}** before the runs,`,
    `  ${Math.round(yardstickAfter).toLocaleString('en-US')} after. Compare figures between machines through it.`,
    `- Load average (1 min) before / after: ${loadBefore.toFixed(1)} / ${os.loadavg()[0].toFixed(1)}; anything else running`,
    '  shares the two cores, so compare runs only at similar load.',
    '',
    comparison,
    ...sections,
  ].join('\n');
  const file = path.join(OUT, 'load-report.md');
  const prettier = require('prettier');
  const options = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(page, { ...options, parser: 'markdown' }));
  log(`written: ${path.relative(ROOT, file)} and ${path.relative(ROOT, IMAGES)}/*.svg (${minutes.toFixed(1)} min)`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
