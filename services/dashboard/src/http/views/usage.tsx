import type { Mode, Usage } from '@idv/contracts';
import type { Locale } from '../../domain/i18n';
import { dateTimeFormat, numberOf } from '../../domain/locale';
import { USAGE_MESSAGES, type UsageMessages } from '../../domain/usage-messages';
import {
  EARLIEST_MONTH,
  STACK_ORDER,
  anySessions,
  chartGeometry,
  countsOf,
  latestMonth,
  totalOf,
  type MonthChoice,
} from '../../domain/usage';
import { renderPage, TableRegion, type SignedInView } from './layout';

/** Live first: it is what the account pays for. */
const MODE_ORDER: readonly Mode[] = ['live', 'test'];

/** A `YYYY-MM` month in the page's language: "noviembre de 2026" (long) or "nov" (short, the chart's axis). */
export function monthLabel(locale: Locale, month: string, style: 'long' | 'short'): string {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  const format = dateTimeFormat(
    locale,
    style === 'long' ? { month: 'long', year: 'numeric', timeZone: 'UTC' } : { month: 'short', timeZone: 'UTC' },
  );
  return format.format(new Date(Date.UTC(year, mon - 1, 1)));
}

/**
 * The account's usage: a month's sessions per mode and status with the tokens they used, the CSV of the
 * month, and a chart of the months up to it per mode (an SVG drawn here, no script) with its numbers in a
 * table. With a month that is not one (`invalid`), the picker and what was wrong, and nothing else.
 */
export function usagePage(
  view: SignedInView & {
    now: Date;
    invalid?: Exclude<MonthChoice, { kind: 'month' }>;
    shown?: { month: string; usage: Usage; months: Usage[]; previous: string | null; next: string | null };
  },
): string {
  const u = USAGE_MESSAGES[view.locale];
  const { locale, shown, invalid } = view;
  const problem = invalid ? u.invalid[invalid.kind](invalid.value) : null;
  return renderPage(
    {
      locale,
      messages: view.messages,
      title: shown ? `${u.title} · ${monthLabel(locale, shown.month, 'long')}` : u.title,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'usage', team: view.team },
    },
    <>
      <h1>{u.title}</h1>
      <p class="lead">{u.lead}</p>
      {problem ? (
        <div class="error-summary" role="alert" tabIndex={-1} id="error-summary">
          <h2>{view.messages.errorSummary}</h2>
          <ul>
            <li>
              <a href="#f-month">{problem}</a>
            </li>
          </ul>
        </div>
      ) : null}
      <MonthPicker u={u} locale={locale} now={view.now} value={shown?.month ?? invalid?.value ?? ''} problem={problem} />
      {shown ? (
        <MonthNavigation u={u} locale={locale} previous={shown.previous} next={shown.next} />
      ) : (
        <p>
          <a href="/usage">{u.current}</a>
        </p>
      )}
      {shown ? <MonthUsage u={u} locale={locale} month={shown.month} usage={shown.usage} /> : null}
      {shown ? <Chart u={u} locale={locale} months={shown.months} /> : null}
    </>,
  );
}

function MonthPicker(props: { u: UsageMessages; locale: Locale; now: Date; value: string; problem: string | null }) {
  const { u, problem } = props;
  const describedBy = problem ? 'h-month e-month' : 'h-month';
  return (
    <form method="get" action="/usage" class="month-picker">
      <div class={problem ? 'field invalid' : 'field'}>
        <label for="f-month">{u.month}</label>
        <p class="hint" id="h-month">
          {u.monthHint}
        </p>
        {problem ? (
          <p class="field-error" id="e-month">
            {problem}
          </p>
        ) : null}
        <input
          id="f-month"
          name="month"
          type="month"
          value={props.value}
          min={EARLIEST_MONTH}
          max={latestMonth(props.now)}
          pattern="[0-9]{4}-[0-9]{2}"
          required
          aria-describedby={describedBy}
          {...(problem ? { 'aria-invalid': 'true' } : {})}
        />
      </div>
      <button type="submit">{u.show}</button>
    </form>
  );
}

function MonthNavigation(props: { u: UsageMessages; locale: Locale; previous: string | null; next: string | null }) {
  const { u, locale } = props;
  return (
    <nav aria-label={u.otherMonths} class="month-nav">
      {props.previous ? (
        <a href={`/usage?month=${props.previous}`} rel="prev">
          {u.previous(monthLabel(locale, props.previous, 'long'))}
        </a>
      ) : null}
      {props.next ? (
        <a href={`/usage?month=${props.next}`} rel="next">
          {u.next(monthLabel(locale, props.next, 'long'))}
        </a>
      ) : null}
    </nav>
  );
}

/** The month's sessions: a row per status, a column per mode, the totals last; the tokens; the CSV. */
function MonthUsage(props: { u: UsageMessages; locale: Locale; month: string; usage: Usage }) {
  const { u, locale, usage } = props;
  const title = u.monthTitle(monthLabel(locale, props.month, 'long'));
  return (
    <>
      <h2>{title}</h2>
      <TableRegion label={title}>
        <table class="usage-month">
          <thead>
            <tr>
              <th scope="col">{u.status}</th>
              {MODE_ORDER.map((mode) => (
                <th scope="col" class="number">
                  {u.modes[mode]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {STACK_ORDER.map((status) => (
              <tr>
                <th scope="row">{u.statuses[status]}</th>
                {MODE_ORDER.map((mode) => (
                  <td class="number">{numberOf(locale, countsOf(usage, mode)[status])}</td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">{u.total}</th>
              {MODE_ORDER.map((mode) => (
                <td class="number">{numberOf(locale, totalOf(usage, mode))}</td>
              ))}
            </tr>
          </tfoot>
        </table>
      </TableRegion>
      <p>{u.tokensDebited(usage.tokens_debited)}</p>
      <p>
        <a href={`/usage.csv?month=${props.month}`} download>
          {u.download}
        </a>
        <br />
        <span class="hint">{u.downloadHint}</span>
      </p>
    </>
  );
}

/** The chart of the months per mode: the legend once, then per mode an SVG and the same numbers as a table. */
function Chart(props: { u: UsageMessages; locale: Locale; months: Usage[] }) {
  const { u, locale, months } = props;
  const first = months[0]?.month ?? '';
  const last = months[months.length - 1]?.month ?? '';
  const from = monthLabel(locale, first, 'long');
  const to = monthLabel(locale, last, 'long');
  return (
    <>
      <h2>{u.chartTitle(from, to)}</h2>
      <p>{anySessions(months) ? u.chartLead : u.noSessions}</p>
      <h3 id="usage-legend">{u.legend}</h3>
      <ul class="legend" aria-labelledby="usage-legend">
        {STACK_ORDER.map((status) => (
          <li>
            <span class={`swatch s-${status}`} aria-hidden="true" />
            {u.statuses[status]}
          </li>
        ))}
      </ul>
      {MODE_ORDER.map((mode) => (
        <ModeChart u={u} locale={locale} mode={mode} months={months} from={from} to={to} />
      ))}
    </>
  );
}

function ModeChart(props: { u: UsageMessages; locale: Locale; mode: Mode; months: Usage[]; from: string; to: string }) {
  const { u, locale, mode, months } = props;
  const geometry = chartGeometry(months.map((usage) => ({ month: usage.month, counts: countsOf(usage, mode) })));
  const label = u.chartLabel(u.modes[mode], props.from, props.to);
  const id = `chart-${mode}`;
  return (
    <section class="usage-chart" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>{u.modes[mode]}</h3>
      <div class="chart-wrap" tabIndex={0} role="region" aria-label={u.chartRegion(u.modes[mode])}>
        <svg
          viewBox={`0 0 ${geometry.width} ${geometry.height}`}
          role="img"
          aria-labelledby={`${id}-title ${id}-desc`}
          focusable="false"
        >
          <title id={`${id}-title`}>{label}</title>
          <desc id={`${id}-desc`}>{u.chartDescription}</desc>
          <g class="grid">
            {geometry.ticks.map((tick) => (
              <>
                <line x1={geometry.plot.left} x2={geometry.plot.right} y1={tick.y} y2={tick.y} />
                <text x={geometry.plot.left - 6} y={tick.y + 4} text-anchor="end">
                  {numberOf(locale, tick.value)}
                </text>
              </>
            ))}
          </g>
          {geometry.bars.map((bar) => {
            const name = monthLabel(locale, bar.month, 'long');
            const [year, mon] = bar.month.split('-');
            return (
              <g class="bar">
                {bar.segments.map((segment) => (
                  <rect class={`s-${segment.status}`} x={bar.x} y={segment.y} width={bar.width} height={segment.height}>
                    <title>{u.segment(u.statuses[segment.status], name, numberOf(locale, segment.count))}</title>
                  </rect>
                ))}
                <text class="month" x={bar.middle} y={geometry.plot.bottom + 15} text-anchor="middle">
                  {monthLabel(locale, bar.month, 'short').replace('.', '')}
                </text>
                {mon === '01' || bar === geometry.bars[0] ? (
                  <text class="year" x={bar.middle} y={geometry.plot.bottom + 29} text-anchor="middle">
                    {year}
                  </text>
                ) : null}
              </g>
            );
          })}
        </svg>
      </div>
      <TableRegion label={label}>
        <table class="usage-months">
          <thead>
            <tr>
              <th scope="col">{u.monthColumn}</th>
              {STACK_ORDER.map((status) => (
                <th scope="col" class="number">
                  {u.statuses[status]}
                </th>
              ))}
              <th scope="col" class="number">
                {u.total}
              </th>
            </tr>
          </thead>
          <tbody>
            {months.map((usage) => {
              const counts = countsOf(usage, mode);
              return (
                <tr>
                  <th scope="row">{monthLabel(locale, usage.month, 'long')}</th>
                  {STACK_ORDER.map((status) => (
                    <td class="number">{numberOf(locale, counts[status])}</td>
                  ))}
                  <td class="number">{numberOf(locale, totalOf(usage, mode))}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableRegion>
    </section>
  );
}
