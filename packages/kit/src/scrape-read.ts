/**
 * A read for gauges computed at scrape time (a cheap, bounded query): shared by the gauges that read
 * the same thing during one scrape, bounded in time, and null when it failed or took too long, so the
 * gauges keep their last values and the scrape itself never fails because the database is down.
 */
export function scrapeRead<T>(read: () => Promise<T>, options: { timeoutMs?: number; reuseMs?: number } = {}) {
  const timeoutMs = options.timeoutMs ?? 2000;
  const reuseMs = options.reuseMs ?? 1000;
  let last: { at: number; result: Promise<T | null> } | null = null;
  return (): Promise<T | null> => {
    const now = Date.now();
    if (last && now - last.at < reuseMs) return last.result;
    const result = withDeadline(read(), timeoutMs).catch(() => null);
    last = { at: now, result };
    return result;
  };
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  // A read that answers after its deadline must not surface as an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** Seconds since `at`, 0 when there is nothing (the age gauges' convention). */
export function ageSeconds(at: Date | null | undefined, now = Date.now()): number {
  return at ? Math.max(0, (now - at.getTime()) / 1000) : 0;
}
