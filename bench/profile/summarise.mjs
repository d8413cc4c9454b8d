// Reads V8 CPU profiles (.cpuprofile, as `node --cpu-prof` writes them) and says where each service's time went
// in a measured window: CPU µs per request, and the functions and packages by self and inclusive time.
// Used by bench/profile/run.mjs; also on its own: `node bench/profile/summarise.mjs <dir>` (a run's directory,
// with windows.json beside the profiles).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Node's own modules, folded into a few families a reader recognises. */
const NODE_FAMILIES = [
  [/^(_http_|http$|https$|internal\/http)/, 'node:http'],
  [/^(net$|internal\/net|internal\/stream_base_commons|internal\/dns|dns)/, 'node:net'],
  [/^(internal\/)?crypto/, 'node:crypto'],
  [/^(internal\/streams|stream$|internal\/webstreams)/, 'node:streams'],
  [
    /^internal\/(process\/task_queues|timers|async_hooks|async_context_frame)|^(timers|async_hooks)$/,
    'node:async (promises, timers)',
  ],
  [/^internal\/deps\/undici/, 'undici (node fetch)'],
  [/^(events$|internal\/event_target)/, 'node:events'],
  [/^(internal\/)?url/, 'node:url'],
  [/^(buffer$|internal\/buffer)/, 'node:buffer'],
  [/^(zlib$|internal\/zlib)/, 'node:zlib'],
  [/^(internal\/)?(fs|modules|vm)/, 'node:fs / modules'],
];

/** The package (or our own part) a frame's script belongs to: the unit the reader thinks in. */
export function categoryOf(frame) {
  const { functionName, url } = frame;
  if (functionName === '(idle)') return '(idle)';
  if (functionName === '(garbage collector)') return '(garbage collector)';
  if (functionName === '(program)' || functionName === '(root)') return '(program: V8 and native, no JS frame)';
  if (!url) return 'V8 builtins & native bindings';
  if (url.startsWith('node:')) {
    const module = url.slice('node:'.length);
    for (const [pattern, family] of NODE_FAMILIES) if (pattern.test(module)) return family;
    return `node:${module.replace(/^internal\//, '').split('/')[0]}`;
  }
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [first, second] = file.slice(modules + '/node_modules/'.length).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  const ours = /\/(services|packages)\/([^/]+)\//.exec(file);
  if (ours) return `ours: ${ours[1] === 'services' ? ours[2] : `@idv/${ours[2]}`}`;
  return path.basename(file);
}

const shortUrl = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\/\.pnpm\/[^/]+\/node_modules\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(services|packages)\//, '$1/');

function frameLabel(frame) {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  return `${name} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
}

/** Which service wrote a profile: the `services/<name>/` most of its scripts come from. */
function serviceOf(profile) {
  const votes = new Map();
  for (const node of profile.nodes) {
    const name = /\/services\/([^/]+)\//.exec(node.callFrame.url)?.[1];
    if (name) votes.set(name, (votes.get(name) ?? 0) + 1);
  }
  return [...votes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown';
}

/** A thread blocked, not computing: the event loop's idle, or a piscina worker parked in `Atomics.wait`. */
const isWaiting = (frame) =>
  frame.functionName === '(idle)' ||
  frame.functionName === 'atomicsWaitLoop' ||
  (frame.functionName === 'wait' && frame.url === '');

/**
 * The samples of `profile` in [startUs, endUs) (the monotonic clock of the profile's timestamps), each weighted by
 * the time until the next sample, as Chrome DevTools does. Returns totals by function and by category.
 */
export function analyse(profile, startUs = -Infinity, endUs = Infinity) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = (node) => `${node.callFrame.functionName}\u0000${node.callFrame.url}\u0000${node.callFrame.lineNumber}`;
  const self = new Map();
  const inclusive = new Map();
  const categorySelf = new Map();
  const categoryInclusive = new Map();
  const frames = new Map();
  const stackCache = new Map(); // node id → { keys, categories } of its stack
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
  const stackOf = (id) => {
    let cached = stackCache.get(id);
    if (cached) return cached;
    const keys = new Set();
    const categories = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const node = nodes.get(at);
      if (node.callFrame.functionName === '(root)') continue;
      const key = keyOf(node);
      keys.add(key);
      frames.set(key, node.callFrame);
      categories.add(categoryOf(node.callFrame));
    }
    cached = { keys, categories };
    stackCache.set(id, cached);
    return cached;
  };
  let at = profile.startTime;
  let cpuUs = 0;
  let idleUs = 0;
  let samples = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i];
    if (at < startUs || at >= endUs) continue;
    const us = profile.timeDeltas[i + 1] ?? 0;
    const node = nodes.get(profile.samples[i]);
    if (isWaiting(node.callFrame)) {
      idleUs += us;
      continue;
    }
    samples++;
    cpuUs += us;
    const key = keyOf(node);
    frames.set(key, node.callFrame);
    add(self, key, us);
    add(categorySelf, categoryOf(node.callFrame), us);
    const stack = stackOf(node.id);
    for (const k of stack.keys) add(inclusive, k, us);
    for (const c of stack.categories) add(categoryInclusive, c, us);
  }
  return { cpuUs, idleUs, samples, self, inclusive, categorySelf, categoryInclusive, frames };
}

/** Profiles of a directory, each with its service, process and thread (from `CPU.<date>.<time>.<pid>.<tid>.<seq>`). */
export function loadProfiles(dir) {
  const entries = readdirSync(dir)
    .filter((file) => file.endsWith('.cpuprofile'))
    .map((file) => {
      const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
      const [, , , pid, tid] = file.split('.');
      return { file, pid: Number(pid), tid: Number(tid), service: serviceOf(profile), profile };
    });
  // A worker thread's scripts may live outside services/: it belongs to its process's service.
  const mains = new Map(entries.filter((entry) => entry.tid === 0).map((entry) => [entry.pid, entry.service]));
  for (const entry of entries) if (entry.tid !== 0) entry.service = mains.get(entry.pid) ?? entry.service;
  return entries;
}

const fmt = (us) => (us >= 100 ? Math.round(us).toLocaleString('en-US') : us.toFixed(1));
const pct = (part, whole) => `${whole > 0 ? ((100 * part) / whole).toFixed(1) : '0.0'}%`;

function topRows(map, frames, total, perRequest, limit, filter = () => true) {
  return [...map]
    .filter(([key]) => filter(frames.get(key)))
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([key, us]) => {
      const frame = frames.get(key);
      return `| ${frameLabel(frame).replace(/\|/g, '\\|')} | ${categoryOf(frame)} | ${fmt(us / perRequest)} | ${pct(us, total)} |`;
    });
}

/**
 * A markdown summary of every profile in `dir` for every window of `windows` (see bench/profile/windows.mjs):
 * per service, CPU µs per request, where it went by package, and the top functions.
 */
export function summarise(dir, windows, { top = 15 } = {}) {
  const profiles = loadProfiles(dir);
  const lines = [];
  const json = [];
  for (const window of windows) {
    const requests = window.requests || 1;
    const seconds = (window.endUs - window.startUs) / 1e6;
    lines.push(
      `## ${window.name}: ${window.requests} requests in ${seconds.toFixed(1)} s (${fmt(window.requests / seconds)}/s)`,
      '',
    );
    const analysed = profiles
      .map((entry) => ({ ...entry, result: analyse(entry.profile, window.startUs, window.endUs) }))
      .filter((entry) => entry.result.samples > 0)
      .sort((a, b) => b.result.cpuUs - a.result.cpuUs);
    lines.push(
      '| service (thread) | requests it served | process CPU µs per request (all threads, /metrics) | main thread busy µs per request (non-idle samples, wall time) | busy share of the window | scale to CPU |',
      '|---|---|---|---|---|---|',
    );
    for (const entry of analysed) {
      const { service, tid, result } = entry;
      const figures = tid === 0 ? window.services?.[service] : undefined;
      const processUs = figures?.cpuSeconds != null ? (figures.cpuSeconds * 1e6) / requests : null;
      // Non-idle samples are wall time: a runnable thread the OS has preempted (every process here shares two
      // cores) goes on counting. Each function keeps its share of the samples, and the whole is scaled to the
      // process's measured CPU, so that the µs below add up to what the process really used.
      entry.scale = processUs !== null && result.cpuUs > 0 ? (processUs * requests) / result.cpuUs : 1;
      lines.push(
        `| ${service}${tid ? ` (worker ${tid})` : ''} | ${figures?.served ?? ''} | ${processUs === null ? '' : fmt(processUs)} | ${fmt(result.cpuUs / requests)} | ${pct(result.cpuUs, seconds * 1e6)} | ${entry.scale.toFixed(2)} |`,
      );
    }
    lines.push('');
    for (const { service, tid, result, scale } of analysed) {
      if (result.cpuUs / requests < 5) continue; // a service that took no part (its process CPU is background work)
      const label = `${service}${tid ? ` (worker ${tid})` : ''}`;
      const routes = tid === 0 ? window.services?.[service]?.routes : undefined;
      const perRequest = requests / scale; // divides a sampled total into CPU µs per request
      lines.push(
        `### ${window.name} · ${label}: ${fmt((scale * result.cpuUs) / requests)} CPU µs per request (${result.samples} samples${scale !== 1 ? `, sampled time × ${scale.toFixed(2)}` : ''})`,
        '',
      );
      if (routes && Object.keys(routes).length) {
        lines.push(
          `Served per request of the benchmark: ${Object.entries(routes)
            .sort((a, b) => b[1] - a[1])
            .map(([route, count]) => `${route} ×${(count / requests).toFixed(2)}`)
            .join(', ')}`,
          '',
        );
      }
      lines.push('| where (package / part) | self µs/req | self % | inclusive µs/req | inclusive % |', '|---|---|---|---|---|');
      for (const [category, us] of [...result.categorySelf].sort((a, b) => b[1] - a[1])) {
        const incl = result.categoryInclusive.get(category) ?? us;
        lines.push(
          `| ${category} | ${fmt(us / perRequest)} | ${pct(us, result.cpuUs)} | ${fmt(incl / perRequest)} | ${pct(incl, result.cpuUs)} |`,
        );
      }
      lines.push('', `Top ${top} functions by self time:`, '', '| function | part | µs/req | % |', '|---|---|---|---|');
      lines.push(...topRows(result.self, result.frames, result.cpuUs, perRequest, top));
      lines.push('', `Top ${top} of our own functions by inclusive time (the function and what it calls):`, '');
      lines.push('| function | part | µs/req | % |', '|---|---|---|---|');
      lines.push(
        ...topRows(result.inclusive, result.frames, result.cpuUs, perRequest, top, (frame) =>
          categoryOf(frame).startsWith('ours:'),
        ),
      );
      lines.push(
        '',
        `Top ${top} functions by inclusive time, any part:`,
        '',
        '| function | part | µs/req | % |',
        '|---|---|---|---|',
      );
      lines.push(...topRows(result.inclusive, result.frames, result.cpuUs, perRequest, top));
      lines.push('');
      json.push({
        window: window.name,
        service: label,
        requests: window.requests,
        served: routes ? window.services?.[service]?.served : undefined,
        sampledUsPerRequest: result.cpuUs / requests,
        cpuUsPerRequest: (scale * result.cpuUs) / requests,
        categories: Object.fromEntries(
          [...result.categorySelf]
            .sort((a, b) => b[1] - a[1])
            .map(([c, us]) => [
              c,
              { selfUs: us / perRequest, inclusiveUs: (result.categoryInclusive.get(c) ?? us) / perRequest },
            ]),
        ),
        topSelf: [...result.self]
          .sort((a, b) => b[1] - a[1])
          .slice(0, top)
          .map(([key, us]) => ({ function: frameLabel(result.frames.get(key)), usPerRequest: us / perRequest })),
      });
    }
  }
  return { markdown: lines.join('\n'), json };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: node bench/profile/summarise.mjs <profile directory with windows.json>\n');
    process.exit(2);
  }
  const windows = JSON.parse(readFileSync(path.join(dir, 'windows.json'), 'utf8'));
  const { markdown, json } = summarise(dir, windows);
  writeFileSync(path.join(dir, 'summary.md'), `${markdown}\n`);
  writeFileSync(path.join(dir, 'summary.json'), `${JSON.stringify(json, null, 2)}\n`);
  process.stdout.write(`${markdown}\n`);
}
