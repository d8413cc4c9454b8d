#!/usr/bin/env node
// Where the time goes: `node bench/profile/run.mjs --bench sessions|flow|webhooks [--seconds N]` runs that benchmark with
// every service of its stack under `node --cpu-prof` (IDV_SERVICE_NODE_ARGS, read by packages/testkit's Stack;
// the load generator itself is not profiled), then summarises each service's profile over each measured window
// (bench/profile/windows.mjs): CPU µs per request, by package and by function. The machine yardstick
// (bench/machine-reference.mjs) is measured before and after, in the same run.
//
// Options: --seconds N (each scenario's length; for flow, the number of flows is N × --flow-rate, default 35/s),
// --scenarios a,b (sessions: create, create-key, create-direct, create-200, create-key-200, get-one, list;
// default all), --interval µs (sampling interval, default 1000, node's default), --top N (functions listed, 15),
// --baseline (runs the benchmark a second time without profiling, for the profiler's overhead), --out DIR
// (default .run/profiles/<bench>-<time>). Writes summary.md, summary.json, windows.json and the .cpuprofile
// files (open them in Chrome DevTools or speedscope) to that directory.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineReference } from '../machine-reference.mjs';
import { summarise } from './summarise.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BENCHES = { sessions: 'bench/sessions/run.mjs', flow: 'bench/flow/run.mjs', webhooks: 'bench/webhooks/run.mjs' };
/** A benchmark that has not ended by then is stopped with its process group. */
const TIME_LIMIT_MS = 15 * 60_000;

const { values: args } = parseArgs({
  options: {
    bench: { type: 'string' },
    seconds: { type: 'string', default: '15' },
    scenarios: { type: 'string', default: '' },
    interval: { type: 'string', default: '1000' },
    top: { type: 'string', default: '15' },
    'flow-rate': { type: 'string', default: '35' },
    baseline: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
if (!BENCHES[args.bench]) {
  process.stderr.write(
    'usage: node bench/profile/run.mjs --bench sessions|flow|webhooks [--seconds N] [--scenarios a,b] [--baseline]\n',
  );
  process.exit(2);
}
const seconds = Math.min(120, Math.max(1, Number(args.seconds)));
const interval = Math.max(50, Number(args.interval));
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const outDir = path.resolve(args.out ?? path.join(ROOT, '.run', 'profiles', `${args.bench}-${stamp}`));

/** Runs the benchmark once; `profileDir` null runs it without profiling. Returns its windows and its result. */
async function runBench(label, profileDir) {
  const dir = path.join(outDir, label);
  mkdirSync(dir, { recursive: true });
  const windowsFile = path.join(dir, 'windows.json');
  const resultFile = path.join(dir, 'result.json');
  const env = {
    ...process.env,
    BENCH_NO_WRITE: '1',
    BENCH_RESULT_FILE: resultFile,
    BENCH_PROFILE_WINDOWS: windowsFile,
    BENCH_SECONDS: String(seconds),
    BENCH_FLOWS: String(Math.round(seconds * Number(args['flow-rate']))),
    BENCH_SCENARIOS: args.scenarios,
    IDV_SERVICE_NODE_ARGS: profileDir ? `--cpu-prof --cpu-prof-dir=${profileDir} --cpu-prof-interval=${interval}` : '',
  };
  process.stdout.write(
    `\n[profile] ${label}: node ${BENCHES[args.bench]}${profileDir ? ` (services profiled every ${interval} µs)` : ''}\n`,
  );
  const child = spawn(process.execPath, [path.join(ROOT, BENCHES[args.bench])], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
    detached: true,
  });
  const limit = setTimeout(() => {
    process.stderr.write('[profile] time limit reached: stopping the benchmark\n');
    process.kill(-child.pid, 'SIGTERM');
  }, TIME_LIMIT_MS);
  const code = await new Promise((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(limit);
  if (code !== 0) throw new Error(`${BENCHES[args.bench]} exited ${code}`);
  return {
    windows: existsSync(windowsFile) ? JSON.parse(readFileSync(windowsFile, 'utf8')) : [],
    result: existsSync(resultFile) ? JSON.parse(readFileSync(resultFile, 'utf8')) : null,
  };
}

const perSecond = (window) => window.requests / ((window.endUs - window.startUs) / 1e6);

function processCpuLine(window) {
  return Object.entries(window.services)
    .filter(([, figures]) => figures.cpuSeconds > 0)
    .map(([service, figures]) => {
      const perRequest = (seconds) => Math.round((seconds * 1e6) / Math.max(1, window.requests));
      const kernel = figures.systemSeconds != null ? ` (kernel ${perRequest(figures.systemSeconds)})` : '';
      return `${service} ${perRequest(figures.cpuSeconds)}${kernel}`;
    })
    .join(', ');
}

async function main() {
  mkdirSync(outDir, { recursive: true });
  const yardstickBefore = await machineReference();
  process.stdout.write(`[profile] yardstick before: ${Math.round(yardstickBefore)} requests/s\n`);
  const profileDir = path.join(outDir, 'profiled');
  const profiled = await runBench('profiled', profileDir);
  const baseline = args.baseline ? await runBench('baseline', null) : null;
  const yardstickAfter = await machineReference();
  process.stdout.write(`[profile] yardstick after: ${Math.round(yardstickAfter)} requests/s\n`);

  const { markdown, json } = summarise(profileDir, profiled.windows, { top: Number(args.top) });
  const cpu = os.cpus();
  const header = [
    `# CPU profile: bench/${args.bench}`,
    '',
    `\`node bench/profile/run.mjs --bench ${args.bench} --seconds ${seconds}${args.scenarios ? ` --scenarios ${args.scenarios}` : ''}${args.baseline ? ' --baseline' : ''}\`,`,
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpu.length} × ${cpu[0]?.model.trim()}, Node ${process.version};`,
    `yardstick (bare node HTTP server over loopback) ${Math.round(yardstickBefore).toLocaleString('en-US')} requests/s before,`,
    `${Math.round(yardstickAfter).toLocaleString('en-US')} after; load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}. Services sampled every ${interval} µs (\`--cpu-prof-interval\`); "main-thread CPU" is the`,
    'non-idle samples of the main thread, "process CPU" is process_cpu_seconds_total (every thread: GC helpers,',
    'libuv pool, JIT, worker threads) over the same window, both divided by the requests the benchmark made.',
    '',
    '| window | requests/s (profiled) | process CPU µs per request (profiled) |' +
      (baseline ? ' requests/s (not profiled) | process CPU µs per request (not profiled) |' : ''),
    `|---|---|---|${baseline ? '---|---|' : ''}`,
    ...profiled.windows.map((window) => {
      const base = baseline?.windows.find((w) => w.name === window.name);
      return `| ${window.name} | ${Math.round(perSecond(window))} | ${processCpuLine(window)} |${
        baseline ? ` ${base ? Math.round(perSecond(base)) : ''} | ${base ? processCpuLine(base) : ''} |` : ''
      }`;
    }),
    '',
  ].join('\n');
  writeFileSync(path.join(outDir, 'summary.md'), `${header}\n${markdown}\n`);
  writeFileSync(
    path.join(outDir, 'summary.json'),
    `${JSON.stringify(
      {
        bench: args.bench,
        seconds,
        interval,
        yardstick: { before: yardstickBefore, after: yardstickAfter },
        windows: profiled.windows,
        baseline: baseline?.windows ?? null,
        result: profiled.result,
        profiles: json,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\n${header}\n${markdown}\n\n[profile] written to ${path.relative(ROOT, outDir)}/summary.md\n`);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`[profile] failed: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
