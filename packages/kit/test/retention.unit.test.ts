import { createLogger } from '../src/logger';
import { createMetrics } from '../src/metrics';
import { RetentionJob, sweepRetention, type RetentionRule } from '../src/jobs/retention';

/** A rule over an in-memory "table" of ages (ms before now), removing up to `batch` rows older than the cutoff. */
function rule(what: string, ageMs: number, batch: number, rows: number[], now: Date, failAfter = Infinity) {
  let calls = 0;
  const removeFrom: RetentionRule = {
    what,
    ageMs,
    batch,
    remove: (cutoff, size) => {
      calls += 1;
      if (calls > failAfter) return Promise.reject(new Error('database away'));
      const due = rows.filter((age) => now.getTime() - age < cutoff.getTime()).slice(0, size);
      for (const age of due) rows.splice(rows.indexOf(age), 1);
      return Promise.resolve(due.length);
    },
  };
  return { rule: removeFrom, rows, calls: () => calls };
}

const NOW = new Date('2030-01-31T00:00:00Z');
const DAY = 86_400_000;

describe('the table-driven retention sweep', () => {
  test('when rows of several kinds are past their age, then each rule removes its own in batches until a short one', async () => {
    const documents = rule('document', 30 * DAY, 2, [31 * DAY, 32 * DAY, 40 * DAY, 29 * DAY, 31 * DAY], NOW);
    const audit = rule('audit', 90 * DAY, 10, [91 * DAY, 10 * DAY], NOW);
    const counted: [string, number][] = [];
    const sweep = await sweepRetention([documents.rule, audit.rule], NOW, (what, n) => counted.push([what, n]));
    expect(sweep).toEqual({ removed: { document: 4, audit: 1 } });
    expect(documents.rows).toEqual([29 * DAY]);
    expect(audit.rows).toEqual([10 * DAY]);
    // 2 + 2 + 0: the third batch came back short.
    expect(documents.calls()).toBe(3);
    expect(counted).toEqual([
      ['document', 2],
      ['document', 2],
      ['audit', 1],
    ]);
  });

  test('when a batch fails part-way, then the sweep stops there, keeps what it removed and returns the error', async () => {
    const documents = rule('document', DAY, 1, [2 * DAY, 3 * DAY, 4 * DAY], NOW, 2);
    const audit = rule('audit', DAY, 10, [2 * DAY], NOW);
    const sweep = await sweepRetention([documents.rule, audit.rule], NOW);
    expect(sweep.removed).toEqual({ document: 2, audit: 0 });
    expect(sweep.error).toBeInstanceOf(Error);
    expect(audit.calls()).toBe(0);
  });
});

describe('a retention job', () => {
  function job(rules: RetentionRule[]) {
    const metrics = createMetrics('test');
    const lines: string[] = [];
    const logger = createLogger({ service: 'test', destination: { write: (line: string) => lines.push(line) } });
    const retention = new RetentionJob({ name: 'test-retention', logger, metrics, intervalMs: 60_000, rules });
    const removedMetric = async () =>
      (await metrics.registry.getSingleMetric('retention_removed_total')!.get()).values.map((v) => [v.labels.what, v.value]);
    return { retention, metrics, lines, removedMetric };
  }

  test('when a sweep removes rows, then each what is counted under the job and the log line carries counts only', async () => {
    const documents = rule('document', DAY, 10, [2 * DAY, 3 * DAY], NOW);
    const audit = rule('audit', DAY, 10, [2 * DAY], NOW);
    const { retention, lines, removedMetric } = job([documents.rule, audit.rule]);
    expect(await retention.sweep(NOW)).toEqual({ document: 2, audit: 1 });
    expect(await removedMetric()).toEqual([
      ['document', 2],
      ['audit', 1],
    ]);
    expect(lines.map((line) => JSON.parse(line) as { job: string; removed: unknown })).toEqual([
      expect.objectContaining({ job: 'test-retention', removed: { document: 2, audit: 1 } }),
    ]);
  });

  test('when only some rules are asked for, then the others are left alone', async () => {
    const documents = rule('document', DAY, 10, [2 * DAY], NOW);
    const audit = rule('audit', DAY, 10, [2 * DAY], NOW);
    const { retention } = job([documents.rule, audit.rule]);
    expect(await retention.sweep(NOW, (r) => r.what === 'audit')).toEqual({ audit: 1 });
    expect(documents.rows).toHaveLength(1);
  });

  test('when a sweep stops part-way, then what went before is counted and the error is thrown', async () => {
    const documents = rule('document', DAY, 1, [2 * DAY, 3 * DAY, 4 * DAY], NOW, 2);
    const { retention, metrics, removedMetric } = job([documents.rule]);
    await expect(retention.sweep(NOW)).rejects.toThrow('database away');
    expect(await removedMetric()).toEqual([['document', 2]]);
    // No complete sweep yet: the gauge an alert reads stays unset.
    expect((await metrics.registry.getSingleMetric('retention_last_sweep_seconds')!.get()).values).toEqual([]);
  });
});
