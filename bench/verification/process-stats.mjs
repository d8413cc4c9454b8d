// CPU and memory of the processes a verification runs through, read from /proc (Linux): CPU as
// utime + stime of /proc/<pid>/stat (every thread of the process, children that exited included),
// memory as VmRSS and VmHWM (peak resident set) of /proc/<pid>/status.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = Number(safe(() => execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) ?? 100) || 100;

function safe(read) {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** CPU seconds a process has used so far (its own and its reaped children's), undefined when it is gone. */
export function cpuSeconds(pid) {
  const stat = safe(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]));
  return (utime + stime + cutime + cstime) / TICKS_PER_SECOND;
}

/** VmRSS and VmHWM of a process in MiB, undefined when it is gone. */
export function memoryMiB(pid) {
  const status = safe(() => readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (status === undefined) return undefined;
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** The process listening on a TCP port of 127.0.0.1 (e.g. the machine's RabbitMQ or Redis), from `ss`. */
export function listenerPid(port) {
  const out = safe(() => execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' })) ?? '';
  const pid = /pid=(\d+)/.exec(out)?.[1];
  return pid ? Number(pid) : undefined;
}

/**
 * CPU of groups of processes over time. `groups()` answers { group: [pid…] } at each sample (a group's
 * processes may come and go, e.g. PostgreSQL backends); a process's CPU counts from the first sample that
 * saw it (0 for one that appeared since the first sample of all) to the last one that did.
 */
export class CpuTracker {
  constructor(groups) {
    this.groups = groups;
    this.seen = new Map(); // `${group}/${pid}` → { group, first, last }
    this.samples = 0;
  }

  async sample() {
    const groups = await this.groups();
    for (const [group, pids] of Object.entries(groups)) {
      for (const pid of pids) {
        const seconds = cpuSeconds(pid);
        if (seconds === undefined) continue;
        const key = `${group}/${pid}`;
        const known = this.seen.get(key);
        if (known) known.last = seconds;
        else this.seen.set(key, { group, first: this.samples === 0 ? seconds : 0, last: seconds });
      }
    }
    this.samples++;
    return this.totals();
  }

  /** CPU seconds of each group since the first sample, as of the latest. */
  totals() {
    const out = {};
    for (const { group, first, last } of this.seen.values()) out[group] = (out[group] ?? 0) + (last - first);
    return out;
  }
}

/** `after − before` for each group (both from `CpuTracker.totals()`). */
export function difference(after, before) {
  return Object.fromEntries(Object.entries(after).map(([group, value]) => [group, value - (before[group] ?? 0)]));
}
