// The measured windows of a benchmark, for the profiler (bench/profile/run.mjs). When BENCH_PROFILE_WINDOWS names
// a file, `measure` records each scenario's start and end on the monotonic clock (the clock of V8's CPU profiles,
// so the profiler can cut each service's profile to the window), the requests the benchmark made in it, and each
// service's served requests and CPU seconds from its /metrics before and after. Without it, `measure` only runs
// the scenario. BENCH_SCENARIOS (comma-separated names) runs only the named scenarios; unset, all of them.
import { writeFileSync } from 'node:fs';

const FILE = process.env.BENCH_PROFILE_WINDOWS;
const ONLY = (process.env.BENCH_SCENARIOS ?? '').split(',').filter(Boolean);
const UNCOUNTED_ROUTES = /route="\/(metrics|healthz|readyz)"/;

/** Requests served (every route but the probes and /metrics) and CPU seconds of one service, from its /metrics. */
async function scrape(url) {
  try {
    const response = await fetch(`${url}/metrics`);
    const text = await response.text();
    let served = 0;
    let cpuSeconds = null;
    let systemSeconds = null;
    const routes = {};
    for (const line of text.split('\n')) {
      if (line.startsWith('http_request_duration_seconds_count{') && !UNCOUNTED_ROUTES.test(line)) {
        const count = Number(line.slice(line.lastIndexOf(' ') + 1));
        const route = `${/method="([^"]*)"/.exec(line)?.[1]} ${/route="([^"]*)"/.exec(line)?.[1]}`;
        routes[route] = (routes[route] ?? 0) + count;
        served += count;
      } else if (line.startsWith('process_cpu_seconds_total')) {
        cpuSeconds = Number(line.slice(line.lastIndexOf(' ') + 1));
      } else if (line.startsWith('process_cpu_system_seconds_total')) {
        systemSeconds = Number(line.slice(line.lastIndexOf(' ') + 1));
      }
    }
    return { served, cpuSeconds, systemSeconds, routes };
  } catch {
    return null; // not running in this stack
  }
}

async function scrapeAll(services) {
  const out = {};
  await Promise.all(
    Object.entries(services).map(async ([name, url]) => {
      const figures = await scrape(url);
      if (figures) out[name] = figures;
    }),
  );
  return out;
}

/** Whether BENCH_SCENARIOS selects `name` (everything when unset). */
export const selected = (name) => ONLY.length === 0 || ONLY.includes(name);

/**
 * `services` maps a service name to its base URL. `measure(name, run, count)` runs the scenario when it is
 * selected; `count(result)` says how many requests the benchmark made in it.
 */
export function profileWindows(services) {
  const windows = [];
  const save = () => FILE && writeFileSync(FILE, `${JSON.stringify(windows, null, 2)}\n`);
  return {
    async measure(name, run, count = () => null) {
      if (!selected(name)) return undefined;
      if (!FILE) return run();
      const before = await scrapeAll(services);
      const startUs = Number(process.hrtime.bigint() / 1000n);
      const result = await run();
      const endUs = Number(process.hrtime.bigint() / 1000n);
      const after = await scrapeAll(services);
      const perService = {};
      for (const [service, figures] of Object.entries(after)) {
        const earlier = before[service];
        if (!earlier) continue;
        const routes = {};
        for (const [route, count] of Object.entries(figures.routes)) {
          const delta = count - (earlier.routes[route] ?? 0);
          if (delta > 0) routes[route] = delta;
        }
        perService[service] = {
          served: figures.served - earlier.served,
          routes,
          cpuSeconds: figures.cpuSeconds !== null && earlier.cpuSeconds !== null ? figures.cpuSeconds - earlier.cpuSeconds : null,
          // Kernel time (syscalls: socket reads and writes over loopback) within cpuSeconds.
          systemSeconds:
            figures.systemSeconds !== null && earlier.systemSeconds !== null
              ? figures.systemSeconds - earlier.systemSeconds
              : null,
        };
      }
      windows.push({ name, startUs, endUs, requests: count(result), services: perService });
      save();
      return result;
    },
  };
}
