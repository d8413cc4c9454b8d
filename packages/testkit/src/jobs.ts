import { waitFor } from './wait';

/**
 * One metric of a running service (`/metrics`, Prometheus text), summed over its series whose labels
 * include `labels`; 0 when there is none.
 */
export async function metricValue(serviceUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const series = (match[2] ?? '').split(',');
    if (wanted.every((pair) => series.includes(pair))) sum += Number(match[3]);
  }
  return sum;
}

/**
 * A barrier for the kit's background jobs (`BackgroundJob`): resolves once every given replica has
 * begun a pass of job `job` after this call and has none of its items in flight. A job's passes run one
 * after the other and a pass hands over what it claimed before the next begins, so by then everything
 * the job had claimed before the call is finished (a "nothing more comes of it" assertion can follow).
 * `wake` (e.g. the NOTIFY the job listens on) starts those passes now instead of at the job's next poll.
 */
export async function jobSettled(
  serviceUrls: readonly string[],
  job: string,
  options: { wake?: () => Promise<void>; timeoutMs?: number } = {},
): Promise<void> {
  const passesBefore = await Promise.all(serviceUrls.map((url) => metricValue(url, 'job_passes_total', { job })));
  await options.wake?.();
  await waitFor(
    async () => {
      for (const [index, url] of serviceUrls.entries()) {
        if ((await metricValue(url, 'job_passes_total', { job })) <= passesBefore[index]!) return false;
        if ((await metricValue(url, 'job_in_flight', { job })) > 0) return false;
      }
      return true;
    },
    options.timeoutMs ?? 15_000,
    25,
    `the job ${job} settled on ${serviceUrls.length} replica(s)`,
  );
}
