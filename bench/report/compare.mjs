// The load report's guard (issue 43): its figures against the last ones committed, and the summary table the
// README shows. Pure functions over the figures the report writes to docs/load-report/figures.json:
//
//   { command, date, components: { [name]: { date, yardstick: { before, after }, load, fixedRate,
//     units: { throughput, latency }, levels: { [level]: { throughput: { [figure]: value },
//     latency: { [figure]: value } } | { failed: reason } } } } }
//
// Each component carries the yardstick of its own run (a `--only` run rewrites only its components), and
// every figure is compared through it: a throughput as its share of the yardstick (×yardstick before ÷ now),
// a latency as a multiple of the yardstick's period (×yardstick now ÷ before), so that a machine twice as fast
// (or half as busy) moves neither. Throughputs at a fixed offered rate (webhooks) are compared raw: they
// follow the rate, not the machine. The yardstick of a run is the better of its before and after (a
// benchmark left running lowers the after; the best is the machine itself, as the yardstick's own best second).

export const THRESHOLD = 0.15;
/** A latency change smaller than this many milliseconds is below the benchmarks' resolution (whole ms). */
export const LATENCY_FLOOR_MS = 1;

export const MARKERS = { start: '<!-- bench:start -->', end: '<!-- bench:end -->' };

/** The yardstick of a component's run: the better of before and after; null when it has none. */
export function yardstickOf(component) {
  const values = [component?.yardstick?.before, component?.yardstick?.after].filter((v) => Number.isFinite(v) && v > 0);
  return values.length > 0 ? Math.max(...values) : null;
}

function flagOf(kind, change, absoluteMs, { threshold, latencyFloorMs }) {
  if (kind === 'latency' && Math.abs(absoluteMs) <= latencyFloorMs) return 'same';
  const worse = kind === 'throughput' ? change < -threshold : change > threshold;
  const better = kind === 'throughput' ? change > threshold : change < -threshold;
  return worse ? 'worse' : better ? 'better' : 'same';
}

/**
 * Every figure of `current` against the same figure (component, level, name) of `baseline`. Components and
 * levels that `current` did not try are left out (a `--only` or `--quick` run compares what it ran).
 * Returns rows { component, level, kind, figure, unit, baseline, current, ratio, normalised, change, flag }:
 * `ratio` is current ÷ baseline; `normalised` the same through each run's yardstick; `change` is
 * normalised − 1, the figure the flag is judged on; `flag` is worse or better (past the threshold, in the
 * figure's own sense: throughput up is better, latency up is worse), same, new (no committed figure),
 * missing (committed, but this run has none: failed or left out) or n/a (a zero or absent committed value).
 */
export function compareFigures(baseline, current, { threshold = THRESHOLD, latencyFloorMs = LATENCY_FLOOR_MS } = {}) {
  const rows = [];
  for (const [name, now] of Object.entries(current?.components ?? {})) {
    const before = baseline?.components?.[name];
    const yNow = yardstickOf(now);
    const yBefore = yardstickOf(before);
    const scale = yNow && yBefore ? yBefore / yNow : 1;
    // Only the levels this run tried: a quick run's or another level list's absent levels are not losses.
    for (const level of Object.keys(now.levels ?? {}).sort((a, b) => Number(a) - Number(b))) {
      for (const kind of ['throughput', 'latency']) {
        const was = before?.levels?.[level]?.[kind] ?? {};
        const is = now.levels?.[level]?.[kind] ?? {};
        for (const figure of new Set([...Object.keys(was), ...Object.keys(is)])) {
          const row = {
            component: name,
            level: Number(level),
            kind,
            figure,
            unit: now.units?.[kind] ?? before?.units?.[kind] ?? '',
            baseline: Number.isFinite(was[figure]) ? was[figure] : null,
            current: Number.isFinite(is[figure]) ? is[figure] : null,
            ratio: null,
            normalised: null,
            change: null,
            flag: 'n/a',
          };
          if (row.baseline === null && row.current === null) continue;
          if (row.baseline === null) row.flag = 'new';
          else if (row.current === null) row.flag = 'missing';
          else if (row.baseline > 0) {
            row.ratio = row.current / row.baseline;
            const factor = kind === 'latency' ? 1 / scale : now.fixedRate ? 1 : scale;
            row.normalised = row.ratio * factor;
            row.change = row.normalised - 1;
            row.flag = flagOf(kind, row.change, row.current * factor - row.baseline, { threshold, latencyFloorMs });
          } else if (kind === 'latency') {
            row.flag = row.current > latencyFloorMs ? 'worse' : 'same';
          }
          rows.push(row);
        }
      }
    }
  }
  return rows;
}

const number = (value) =>
  value === null || value === undefined
    ? '–'
    : Math.abs(value) >= 100
      ? Math.round(value).toLocaleString('en-US')
      : String(Number(value.toPrecision(3)));
const times = (value) => (value === null ? '–' : `×${value.toFixed(2)}`);
const percent = (change) => (change === null ? '–' : `${change >= 0 ? '+' : '−'}${Math.abs(change * 100).toFixed(0)} %`);
const MARK = { worse: '▼', better: '▲', missing: '▼', new: 'new', same: '', 'n/a': '' };

/** How many rows of each flag. */
export function tally(rows) {
  const counts = { worse: 0, better: 0, same: 0, new: 0, missing: 0, 'n/a': 0 };
  for (const row of rows) counts[row.flag]++;
  return counts;
}

/** One line on what was compared with what. */
export function comparisonHeadline(baseline, current, rows, { threshold = THRESHOLD, source = 'the committed figures' } = {}) {
  if (!baseline) return `No committed figures to compare with (${source}): this run becomes the baseline once committed.`;
  const names = Object.keys(current?.components ?? {});
  const dates = [...new Set(names.map((name) => baseline.components?.[name]?.date).filter(Boolean))];
  const yBefore = [...new Set(names.map((name) => yardstickOf(baseline.components?.[name])).filter(Boolean))];
  const yNow = [...new Set(names.map((name) => yardstickOf(current.components[name])).filter(Boolean))];
  const counts = tally(rows);
  const k = (values) => values.map((v) => Math.round(v).toLocaleString('en-US')).join(', ') || '–';
  return (
    `Against ${source} (${dates.join(', ') || 'undated'}, yardstick ${k(yBefore)}; now ${k(yNow)}): ` +
    `${counts.worse + counts.missing} worse by more than ${Math.round(threshold * 100)} % or missing, ` +
    `${counts.better} better, ${counts.same} within, ${counts.new} new.`
  );
}

/** The comparison as a markdown table: ▼ worse, ▲ better (past the threshold, through the yardstick). */
export function comparisonMarkdown(rows) {
  if (rows.length === 0) return '';
  const lines = [
    '| component | load | figure | committed | now | now ÷ committed | through the yardstick | |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.component} | ${row.level} | ${row.figure} (${row.unit}) | ${number(row.baseline)} | ${number(row.current)} | ` +
        `${times(row.ratio)} | ${percent(row.change)} | ${MARK[row.flag]} |`,
    );
  }
  return lines.join('\n');
}

const ANSI = { worse: '\x1b[31m', missing: '\x1b[31m', better: '\x1b[32m', reset: '\x1b[0m' };

/** The comparison for a terminal: aligned columns, worse in red and better in green when `colour`. */
export function comparisonText(rows, { colour = false } = {}) {
  const table = [
    ['component', 'load', 'figure', 'committed', 'now', 'now/committed', 'via yardstick', ''],
    ...rows.map((row) => [
      row.component,
      String(row.level),
      `${row.figure} (${row.unit})`,
      number(row.baseline),
      number(row.current),
      times(row.ratio),
      percent(row.change),
      row.flag === 'same' || row.flag === 'n/a' ? '' : row.flag,
    ]),
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((cells) => cells[i].length)));
  const right = new Set([1, 3, 4, 5, 6]);
  return table
    .map((cells, index) => {
      const line = cells
        .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd();
      const flag = index > 0 ? rows[index - 1].flag : null;
      return colour && ANSI[flag] ? `${ANSI[flag]}${line}${ANSI.reset}` : line;
    })
    .join('\n');
}

/** Whether to colour a stream: a terminal, or FORCE_COLOR set (and not 0); NO_COLOR wins. */
export function wantsColour(stream, env) {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return Boolean(stream.isTTY);
}

/** The highest level of a component that ran to the end, with its figures. */
function topLevel(component) {
  const ran = Object.entries(component.levels ?? {}).filter(([, figures]) => !figures.failed);
  ran.sort(([a], [b]) => Number(a) - Number(b));
  return ran.length > 0 ? ran[ran.length - 1] : null;
}

/**
 * The README's benchmark table: one row per component at its highest load level, each throughput with its
 * share of that run's yardstick (not for fixed-rate throughputs), and the run's date and yardstick.
 * `link` is the load report's path relative to the file the table goes into.
 */
export function summaryTable(figures, { link = 'docs/load-report.md' } = {}) {
  const lines = [
    `Written by \`node bench/report/run.mjs\` from the figures of the current code ([load report](${link}): every level,`,
    'plots, and the change against the previous figures). Throughput in brackets: its share of the machine yardstick',
    '(`bench/machine-reference.mjs`, a bare node HTTP server over loopback) of the same run.',
    '',
    '| component | at | throughput | latency | measured (yardstick) |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const [name, component] of Object.entries(figures.components ?? {})) {
    const top = topLevel(component);
    const yardstick = yardstickOf(component);
    const measured = `${component.date ?? '–'} (${yardstick ? Math.round(yardstick).toLocaleString('en-US') : '–'}/s)`;
    if (!top) {
      lines.push(`| ${name} | – | failed | – | ${measured} |`);
      continue;
    }
    const [level, values] = top;
    const throughput = Object.entries(values.throughput ?? {})
      .filter(([, v]) => Number.isFinite(v))
      .map(([figure, v]) => {
        const share = yardstick && !component.fixedRate ? ` (${Number(((v / yardstick) * 100).toPrecision(2))} %)` : '';
        return `${figure} ${number(v)}${share}`;
      });
    const latency = Object.entries(values.latency ?? {})
      .filter(([, v]) => Number.isFinite(v))
      .map(([figure, v]) => `${figure} ${number(v)}`);
    lines.push(
      `| ${name} | ${level} ${component.load} | ${throughput.join('; ')} ${component.units?.throughput ?? ''} | ` +
        `${latency.join('; ')} ${latency.length > 0 ? (component.units?.latency ?? '') : '–'} | ${measured} |`,
    );
  }
  return lines.join('\n');
}

/** `text` with what lies between the markers replaced by `block`; null when the markers are not both there. */
export function replaceBetweenMarkers(text, block) {
  const start = text.indexOf(MARKERS.start);
  const end = text.indexOf(MARKERS.end, start + 1);
  if (start < 0 || end < 0) return null;
  return `${text.slice(0, start + MARKERS.start.length)}\n\n${block.trim()}\n\n${text.slice(end)}`;
}
