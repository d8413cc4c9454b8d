import { MODES, monthIndex, shiftMonth, type Mode, type SessionStatus, type Usage } from '@idv/contracts';
import { ARGENTINA_TIME_ZONE } from './locale';

/**
 * The usage page's pure parts: which month a query asks for, the months its chart shows, and the chart's
 * geometry. Months are the public API's (`GET /v1/usage`): calendar months in UTC.
 */

/** Months the chart shows, the asked-for month the last of them. */
export const CHART_MONTHS = 12;
/** No month before this one is asked for (the service did not exist); its chart would reach year 0. */
export const EARLIEST_MONTH = '2000-01';
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** The statuses bottom to top in each bar: the decided ones first, what is still open on top. */
export const STACK_ORDER = [
  'approved',
  'rejected',
  'expired',
  'abandoned',
  'canceled',
  'in_progress',
  'pending',
] as const satisfies readonly SessionStatus[];

/** The month (`YYYY-MM`) it is at `now` in Argentina: the page's month when none is asked for. */
export function argentinaMonth(now: Date): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: ARGENTINA_TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
  }).formatToParts(now);
  const part = (type: string) => parts.find((entry) => entry.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}`;
}

/**
 * The latest month that may be asked for: the UTC month of `now`. The counts are UTC months, as the public
 * API's, so for the three hours when UTC has turned the month and Argentina has not, that month already
 * holds sessions and may be asked for; a month after it holds none yet and is refused.
 */
export function latestMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}

export type MonthChoice =
  | { kind: 'month'; month: string }
  /** Not a month of shape YYYY-MM (or given twice): 400. */
  | { kind: 'malformed'; value: string }
  /** A month after the current one, or before the earliest: 422. */
  | { kind: 'out_of_range'; value: string };

/** The month a query's `month` asks for: Argentina's current month when none is given. */
export function parseMonth(value: unknown, now: Date): MonthChoice {
  if (value === undefined || value === '') return { kind: 'month', month: argentinaMonth(now) };
  if (typeof value !== 'string') return { kind: 'malformed', value: '' };
  const shown = value.slice(0, 20);
  if (!MONTH.test(value)) return { kind: 'malformed', value: shown };
  if (value > latestMonth(now) || value < EARLIEST_MONTH) return { kind: 'out_of_range', value };
  return { kind: 'month', month: value };
}

/** The previous and next months' links of the picker: none past the latest month nor before the earliest. */
export function monthNeighbours(month: string, now: Date): { previous: string | null; next: string | null } {
  const previous = shiftMonth(month, -1);
  const next = shiftMonth(month, 1);
  return {
    previous: previous >= EARLIEST_MONTH ? previous : null,
    next: next <= latestMonth(now) ? next : null,
  };
}

/** The chart's range: `CHART_MONTHS` months ending at `month`, never before the earliest month. */
export function chartRange(month: string): { from: string; to: string } {
  const from = shiftMonth(month, -(CHART_MONTHS - 1));
  return { from: from < EARLIEST_MONTH ? EARLIEST_MONTH : from, to: month };
}

/** A month's sessions of one mode per status, the statuses of the stack only (`total` apart). */
export function countsOf(usage: Usage, mode: Mode): Record<(typeof STACK_ORDER)[number], number> {
  const counts = usage.sessions[mode];
  return Object.fromEntries(STACK_ORDER.map((status) => [status, counts[status] ?? 0])) as Record<
    (typeof STACK_ORDER)[number],
    number
  >;
}

/** The sessions of one mode in a month, every status. */
export function totalOf(usage: Usage, mode: Mode): number {
  const counts = countsOf(usage, mode);
  return STACK_ORDER.reduce((sum, status) => sum + counts[status], 0);
}

/** Whether a range of months had any session in any mode. */
export function anySessions(months: readonly Usage[]): boolean {
  return months.some((usage) => MODES.some((mode) => totalOf(usage, mode) > 0));
}

export interface ChartSegment {
  status: (typeof STACK_ORDER)[number];
  count: number;
  y: number;
  height: number;
}

export interface ChartBar {
  month: string;
  total: number;
  /** The bar's left edge and width, and the middle of its slot (where its label goes). */
  x: number;
  width: number;
  middle: number;
  /** Bottom to top, statuses without sessions left out. */
  segments: ChartSegment[];
}

export interface ChartGeometry {
  width: number;
  height: number;
  plot: { left: number; right: number; top: number; bottom: number };
  /** The scale's top (a round number at or above the tallest bar) and its gridlines. */
  top: number;
  ticks: { value: number; y: number }[];
  bars: ChartBar[];
}

/** The smallest round step (1, 2 or 5 times a power of ten, at least 1) that reaches `max` in five steps or fewer. */
export function tickStep(max: number): number {
  const rough = Math.max(max, 1) / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? 10 * power;
  return Math.max(1, step);
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * A stacked bar per month: the height of each status's segment is its sessions over the scale's top.
 * Coordinates are the SVG's user units (its viewBox), rounded to a tenth.
 */
export function chartGeometry(
  months: readonly { month: string; counts: Record<(typeof STACK_ORDER)[number], number> }[],
  size: { width: number; height: number } = { width: 640, height: 250 },
): ChartGeometry {
  // Room on the left for the scale's numbers, below for two lines of labels (the month, the year).
  const plot = { left: 48, right: size.width - 8, top: 12, bottom: size.height - 34 };
  const totals = months.map(({ counts }) => STACK_ORDER.reduce((sum, status) => sum + counts[status], 0));
  const step = tickStep(Math.max(0, ...totals));
  const top = Math.max(step, Math.ceil(Math.max(0, ...totals) / step) * step);
  const scale = (plot.bottom - plot.top) / top;
  const ticks = Array.from({ length: top / step + 1 }, (_, index) => ({
    value: index * step,
    y: round(plot.bottom - index * step * scale),
  }));
  const slot = (plot.right - plot.left) / Math.max(1, months.length);
  const barWidth = round(slot * 0.6);
  const bars = months.map(({ month, counts }, index) => {
    let base = plot.bottom;
    const segments: ChartSegment[] = [];
    for (const status of STACK_ORDER) {
      const count = counts[status];
      if (count <= 0) continue;
      const height = count * scale;
      segments.push({ status, count, y: round(base - height), height: round(height) });
      base -= height;
    }
    const left = plot.left + index * slot;
    return {
      month,
      total: totals[index] ?? 0,
      x: round(left + (slot - barWidth) / 2),
      width: barWidth,
      middle: round(left + slot / 2),
      segments,
    };
  });
  return { width: size.width, height: size.height, plot, top, ticks, bars };
}

/** Months apart from `from` to `to` (for the chart's title: "the last N months"). */
export function monthsSpanned(from: string, to: string): number {
  return monthIndex(to) - monthIndex(from) + 1;
}
