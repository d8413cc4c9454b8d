import type { Usage } from '@idv/contracts';
import {
  STACK_ORDER,
  argentinaMonth,
  chartGeometry,
  chartRange,
  latestMonth,
  monthNeighbours,
  parseMonth,
  tickStep,
} from '../src/domain/usage';
import { MESSAGES } from '../src/domain/i18n';
import { monthLabel, usagePage } from '../src/http/views/usage';

const NOW = new Date('2026-11-15T12:00:00Z');
const none = () => Object.fromEntries(STACK_ORDER.map((status) => [status, 0])) as Record<(typeof STACK_ORDER)[number], number>;

describe('the month a query asks for', () => {
  it('when none is given, then it is the current month in Argentina, also in the hours UTC has turned it', () => {
    expect(parseMonth(undefined, NOW)).toEqual({ kind: 'month', month: '2026-11' });
    expect(parseMonth('', NOW)).toEqual({ kind: 'month', month: '2026-11' });
    // 30 November, 22:30 in Buenos Aires (UTC−3): already December in UTC.
    const lateEvening = new Date('2026-12-01T01:30:00Z');
    expect(argentinaMonth(lateEvening)).toBe('2026-11');
    expect(parseMonth(undefined, lateEvening)).toEqual({ kind: 'month', month: '2026-11' });
    // December is UTC's month already, and holds sessions: it may be asked for.
    expect(latestMonth(lateEvening)).toBe('2026-12');
    expect(parseMonth('2026-12', lateEvening)).toEqual({ kind: 'month', month: '2026-12' });
    expect(argentinaMonth(new Date('2027-01-01T03:00:00Z'))).toBe('2027-01');
  });

  it('when it is a month up to the current one, then that month', () => {
    expect(parseMonth('2026-11', NOW)).toEqual({ kind: 'month', month: '2026-11' });
    expect(parseMonth('2019-02', NOW)).toEqual({ kind: 'month', month: '2019-02' });
    expect(parseMonth('2000-01', NOW)).toEqual({ kind: 'month', month: '2000-01' });
  });

  it('when it is not a month of shape YYYY-MM, then malformed, with what was typed (cut short) to show back', () => {
    for (const value of ['2026-13', '2026-00', '2026-1', '26-11', 'noviembre', '2026-11-01', ' 2026-11', '2026/11']) {
      expect(parseMonth(value, NOW)).toEqual({ kind: 'malformed', value });
    }
    expect(parseMonth('x'.repeat(500), NOW)).toEqual({ kind: 'malformed', value: 'x'.repeat(20) });
    // Given twice (?month=a&month=b) or as an object (?month[a]=b): not one month.
    expect(parseMonth(['2026-10', '2026-11'], NOW)).toEqual({ kind: 'malformed', value: '' });
    expect(parseMonth({ a: 'b' }, NOW)).toEqual({ kind: 'malformed', value: '' });
  });

  it('when it is after the current month or before 2000, then out of range', () => {
    expect(parseMonth('2026-12', NOW)).toEqual({ kind: 'out_of_range', value: '2026-12' });
    expect(parseMonth('9999-12', NOW)).toEqual({ kind: 'out_of_range', value: '9999-12' });
    expect(parseMonth('1999-12', NOW)).toEqual({ kind: 'out_of_range', value: '1999-12' });
    expect(parseMonth('0000-01', NOW)).toEqual({ kind: 'out_of_range', value: '0000-01' });
  });
});

describe('the picker and the chart’s months', () => {
  it('when the month is the current one, then there is a previous month and no next one', () => {
    expect(monthNeighbours('2026-11', NOW)).toEqual({ previous: '2026-10', next: null });
    expect(monthNeighbours('2026-01', NOW)).toEqual({ previous: '2025-12', next: '2026-02' });
    expect(monthNeighbours('2000-01', NOW)).toEqual({ previous: null, next: '2000-02' });
  });

  it('when a month is shown, then the chart has the 12 months ending at it, never before 2000', () => {
    expect(chartRange('2026-11')).toEqual({ from: '2025-12', to: '2026-11' });
    expect(chartRange('2026-12')).toEqual({ from: '2026-01', to: '2026-12' });
    expect(chartRange('2000-05')).toEqual({ from: '2000-01', to: '2000-05' });
  });

  it('when a month is labelled, then in the page’s language', () => {
    expect(monthLabel('es', '2026-11', 'long')).toBe('noviembre de 2026');
    expect(monthLabel('en', '2026-11', 'long')).toBe('November 2026');
    expect(monthLabel('en', '2026-01', 'short')).toBe('Jan');
  });
});

describe('the chart’s geometry', () => {
  it('when the scale is chosen, then the smallest round step that reaches the tallest bar in five steps or fewer', () => {
    expect([0, 1, 3, 4, 7, 10, 45, 120, 999, 12_345].map(tickStep)).toEqual([1, 1, 1, 1, 2, 2, 10, 50, 200, 5000]);
  });

  it('when months have sessions, then each bar stacks its statuses bottom up to its total, on a round scale', () => {
    const geometry = chartGeometry([
      { month: '2026-10', counts: { ...none(), approved: 6, rejected: 2, pending: 1 } },
      { month: '2026-11', counts: { ...none(), expired: 3 } },
      { month: '2026-12', counts: none() },
    ]);
    const { plot } = geometry;
    expect(geometry.top).toBe(10);
    expect(geometry.ticks.map((tick) => tick.value)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(geometry.ticks[0]!.y).toBe(plot.bottom);
    expect(geometry.ticks.at(-1)!.y).toBe(plot.top);
    const [october, november, december] = geometry.bars;
    expect(october!.segments.map((segment) => [segment.status, segment.count])).toEqual([
      ['approved', 6],
      ['rejected', 2],
      ['pending', 1],
    ]);
    const unit = (plot.bottom - plot.top) / 10;
    // The first segment stands on the axis, each next one on the one below, and the bar is 9 of 10 high.
    expect(october!.segments[0]!.y + october!.segments[0]!.height).toBeCloseTo(plot.bottom, 0);
    for (let index = 1; index < october!.segments.length; index++) {
      const below = october!.segments[index - 1]!;
      const segment = october!.segments[index]!;
      expect(segment.y + segment.height).toBeCloseTo(below.y, 0);
    }
    expect(plot.bottom - october!.segments.at(-1)!.y).toBeCloseTo(9 * unit, 0);
    expect(november!.segments).toEqual([
      { status: 'expired', count: 3, y: expect.any(Number), height: expect.closeTo(3 * unit, 0) },
    ]);
    expect(december!.segments).toEqual([]);
    expect(december!.total).toBe(0);
    // Bars in order, apart, inside the plot.
    expect(october!.x).toBeGreaterThan(plot.left);
    expect(november!.x).toBeGreaterThan(october!.x + october!.width);
    expect(december!.x + december!.width).toBeLessThan(plot.right);
  });

  it('when no month has a session, then the bars are empty on a scale of one', () => {
    const geometry = chartGeometry([{ month: '2026-11', counts: none() }]);
    expect(geometry.top).toBe(1);
    expect(geometry.ticks.map((tick) => tick.value)).toEqual([0, 1]);
    expect(geometry.bars[0]!.segments).toEqual([]);
  });
});

describe('the usage page’s markup', () => {
  const usage = (month: string, live: Record<string, number>, tokens = 0): Usage => ({
    object: 'usage',
    month,
    sessions: { live, test: { approved: 1, total: 1 } },
    tokens_debited: tokens,
  });
  const months = [usage('2026-10', { approved: 2, total: 2 }, 2), usage('2026-11', { approved: 3, rejected: 1, total: 4 }, 4)];
  const html = usagePage({
    locale: 'es',
    messages: MESSAGES.es,
    csrfToken: 'token',
    team: true,
    account: { id: 'acc_01J00000000000000000000000', name: 'Fichas S.A.' } as never,
    now: NOW,
    shown: { month: '2026-11', usage: months[1]!, months, previous: '2026-10', next: null },
  });

  it('when it is drawn, then the chart is an image with a name and a description, and no script', () => {
    expect(html).not.toMatch(/<script|\son[a-z]+=|style=/i);
    expect(html).toContain('<svg viewBox="0 0 640 250" role="img" aria-labelledby="chart-live-title chart-live-desc"');
    expect(html).toContain(
      '<title id="chart-live-title">Sesiones en modo real por mes y estado, de octubre de 2026 a noviembre de 2026</title>',
    );
    expect(html).toContain('text-anchor="middle"');
  });

  it('when it is drawn, then every table’s headers have a scope and the headings go down one level at a time', () => {
    expect(html).not.toMatch(/<th(?=[\s>])(?![^>]*scope=)/);
    const levels = [...html.matchAll(/<h([1-6])/g)].map((match) => Number(match[1]));
    expect(levels[0]).toBe(1);
    for (let index = 1; index < levels.length; index++) expect(levels[index]! - levels[index - 1]!).toBeLessThanOrEqual(1);
    expect(html).toContain('<label for="f-month">Mes</label>');
    expect(html).toContain('<a href="/usage.csv?month=2026-11" download>Descargar CSV</a>');
    expect(html).toContain('Usaron 4 fichas');
  });
});
