import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The load report's guard (bench/report/compare.mjs, issue 43): its figures against the committed ones, through
 * the yardstick of each run. The module is an ES module, as every script of bench/ is, and jest's registry
 * loads CommonJS only: each call runs in a fresh node process, its arguments and result as JSON.
 */
const COMPARE = pathToFileURL(path.resolve(__dirname, '..', '..', '..', 'bench', 'report', 'compare.mjs')).href;

function call(fn: string, ...args: unknown[]): any {
  const script = `
    import { readFileSync } from 'node:fs';
    import * as compare from ${JSON.stringify(COMPARE)};
    const { fn, args } = JSON.parse(readFileSync(0, 'utf8'));
    process.stdout.write(JSON.stringify(compare[fn](...args)));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify({ fn, args }),
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

type Levels = Record<string, { throughput?: Record<string, number>; latency?: Record<string, number> } | { failed: string }>;

function figures(yardstick: number, levels: Levels, extra: Record<string, unknown> = {}) {
  return {
    date: '2026-11-30',
    yardstick: { before: yardstick, after: yardstick * 0.9 },
    load: 'connections',
    fixedRate: false,
    units: { throughput: 'requests/s', latency: 'ms' },
    levels,
    ...extra,
  };
}

const byFigure = (rows: any[]) => Object.fromEntries(rows.map((row) => [`${row.level} ${row.figure}`, row]));

describe('compareFigures', () => {
  const baseline = {
    components: {
      gateway: figures(40_000, {
        '4': { throughput: { gateway: 1000, direct: 2000, steady: 3000 }, latency: { p50: 10, p99: 100, fast: 2 } },
        '16': { throughput: { gateway: 1500 }, latency: { p99: 200 } },
        '64': { throughput: { gateway: 1600 }, latency: { p99: 400 } },
      }),
      faces: figures(40_000, { '1': { throughput: { steps: 1 }, latency: { p50: 1000 } } }),
    },
  };

  test('when the yardstick is unchanged, then a throughput down or a latency up by more than 15 % is worse, and the reverse better', () => {
    const current = {
      components: {
        gateway: figures(40_000, {
          '4': { throughput: { gateway: 800, direct: 2400, steady: 2700 }, latency: { p50: 12, p99: 80, fast: 3 } },
        }),
      },
    };
    const rows = byFigure(call('compareFigures', baseline, current));
    expect(rows['4 gateway']).toMatchObject({ kind: 'throughput', baseline: 1000, current: 800, flag: 'worse' });
    expect(rows['4 gateway'].change).toBeCloseTo(-0.2);
    expect(rows['4 direct']).toMatchObject({ flag: 'better' });
    expect(rows['4 steady']).toMatchObject({ flag: 'same' }); // −10 %
    expect(rows['4 p50']).toMatchObject({ kind: 'latency', flag: 'worse' }); // +20 %
    expect(rows['4 p99']).toMatchObject({ flag: 'better' }); // −20 %
    // +50 %, but one millisecond: below the benchmarks' resolution
    expect(rows['4 fast']).toMatchObject({ flag: 'same' });
  });

  test('when the machine answers half as fast, then half the throughput and twice the latency are unchanged through the yardstick', () => {
    const current = {
      components: { gateway: figures(20_000, { '4': { throughput: { gateway: 500 }, latency: { p99: 200 } } }) },
    };
    const rows = byFigure(call('compareFigures', baseline, current));
    expect(rows['4 gateway'].ratio).toBeCloseTo(0.5);
    expect(rows['4 gateway'].normalised).toBeCloseTo(1);
    expect(rows['4 gateway'].flag).toBe('same');
    expect(rows['4 p99'].ratio).toBeCloseTo(2);
    expect(rows['4 p99'].normalised).toBeCloseTo(1);
    expect(rows['4 p99'].flag).toBe('same');
  });

  test('when a throughput follows a fixed offered rate, then it is compared as measured, not through the yardstick', () => {
    const fixed = (yardstick: number) => ({
      components: { webhooks: figures(yardstick, { '100': { throughput: { delivered: 100 } } }, { fixedRate: true }) },
    });
    const [row] = call('compareFigures', fixed(40_000), fixed(20_000));
    expect(row).toMatchObject({ figure: 'delivered', ratio: 1, normalised: 1, change: 0, flag: 'same' });
  });

  test('when a level failed now, a figure is new or a component or level was not run, then they are missing, new, or left out', () => {
    const current = {
      components: {
        gateway: figures(40_000, {
          '4': { throughput: { gateway: 1000, direct: 2000, steady: 3000, added: 5 }, latency: { p50: 10, p99: 100, fast: 2 } },
          '16': { failed: 'exited 1' },
        }),
      },
    };
    const rows = call('compareFigures', baseline, current);
    const flags = byFigure(rows);
    expect(flags['4 added'].flag).toBe('new');
    expect(flags['16 gateway'].flag).toBe('missing');
    expect(flags['16 p99'].flag).toBe('missing');
    expect(rows.filter((row: any) => row.level === 64 || row.component === 'faces')).toEqual([]);
    expect(call('tally', rows)).toMatchObject({ worse: 0, better: 0, same: 6, new: 1, missing: 2 });
  });

  test('when there are no committed figures, then every figure is new and the headline says so', () => {
    const current = { components: { faces: figures(40_000, { '1': { throughput: { steps: 1 } } }) } };
    expect(call('compareFigures', null, current)).toEqual([expect.objectContaining({ flag: 'new', baseline: null, current: 1 })]);
    expect(call('comparisonHeadline', null, current, [])).toMatch(/^No committed figures/);
  });
});

describe('the comparison shown', () => {
  const rows = [
    {
      component: 'gateway',
      level: 4,
      kind: 'throughput',
      figure: 'gateway',
      unit: 'requests/s',
      baseline: 1000,
      current: 700,
      ratio: 0.7,
      normalised: 0.7,
      change: -0.3,
      flag: 'worse',
    },
    {
      component: 'gateway',
      level: 4,
      kind: 'latency',
      figure: 'p99',
      unit: 'ms',
      baseline: 100,
      current: 50,
      ratio: 0.5,
      normalised: 0.5,
      change: -0.5,
      flag: 'better',
    },
    {
      component: 'gateway',
      level: 4,
      kind: 'latency',
      figure: 'p50',
      unit: 'ms',
      baseline: 10,
      current: 10,
      ratio: 1,
      normalised: 1,
      change: 0,
      flag: 'same',
    },
  ];

  test('when coloured, then worse rows are red and better rows green; uncoloured, then no escape at all', () => {
    const lines = call('comparisonText', rows, { colour: true }).split('\n');
    const RED = '\x1b[31m';
    const GREEN = '\x1b[32m';
    const RESET = '\x1b[0m';
    expect(lines[1].startsWith(RED) && lines[1].endsWith(`worse${RESET}`)).toBe(true);
    expect(lines[1]).toMatch(/gateway .*−30 %/);
    expect(lines[2].startsWith(GREEN) && lines[2].endsWith(`better${RESET}`)).toBe(true);
    expect(lines[3]).not.toContain('\x1b[');
    expect(call('comparisonText', rows, { colour: false })).not.toContain('\x1b[');
  });

  test('when written as markdown, then worse is marked ▼ and better ▲', () => {
    const lines = call('comparisonMarkdown', rows).split('\n');
    expect(lines[2]).toMatch(/\| ×0\.70 \| −30 % \| ▼ \|$/);
    expect(lines[3]).toMatch(/\| ×0\.50 \| −50 % \| ▲ \|$/);
    expect(lines[4].endsWith('| +0 % |  |')).toBe(true);
  });

  test('when FORCE_COLOR or NO_COLOR is set, then they decide; otherwise whether the stream is a terminal', () => {
    expect(call('wantsColour', { isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(call('wantsColour', { isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
    expect(call('wantsColour', { isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    expect(call('wantsColour', { isTTY: true }, {})).toBe(true);
    expect(call('wantsColour', {}, {})).toBe(false);
  });
});

describe('the README table', () => {
  test('when a component ran at several levels, then its row shows the highest that ran, throughput with its share of the yardstick', () => {
    const table: string = call('summaryTable', {
      components: {
        gateway: figures(50_000, {
          '1': { throughput: { gateway: 1000 }, latency: { p99: 4 } },
          '4': { throughput: { gateway: 2500 }, latency: { p99: 16 } },
          '16': { failed: 'exited 1' },
        }),
      },
    });
    expect(table).toContain('| gateway | 4 connections | gateway 2,500 (5 %) requests/s | p99 16 ms | 2026-11-30 (50,000/s) |');
  });

  test('when the markers are there, then only what lies between them is replaced; without them, nothing is', () => {
    const text = 'before\n<!-- bench:start -->\nold table\n<!-- bench:end -->\nafter\n';
    expect(call('replaceBetweenMarkers', text, 'new table\n')).toBe(
      'before\n<!-- bench:start -->\n\nnew table\n\n<!-- bench:end -->\nafter\n',
    );
    expect(call('replaceBetweenMarkers', 'no markers here', 'table')).toBeNull();
  });
});
