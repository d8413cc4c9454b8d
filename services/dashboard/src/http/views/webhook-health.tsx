import type { WebhookHealth, WebhookHealthWindow, WebhookRetry } from '@idv/contracts';
import type { Locale } from '../../domain/i18n';
import type { RetryHealthMessages } from '../../domain/webhook-health-messages';
import type { RetryFormErrors, RetryInput } from '../../domain/webhook-retry';
import { ARGENTINA_TIME_ZONE, dateTimeFormat, numberOf } from '../../domain/locale';
import { TableRegion, timeOf } from './layout';

/** A bucket's label: its hour, or its day, in Argentina's time. */
function bucketLabel(locale: Locale, start: string, granularity: 'hour' | 'day', style: 'short' | 'long'): string {
  const options: Intl.DateTimeFormatOptions =
    granularity === 'hour'
      ? {
          timeZone: ARGENTINA_TIME_ZONE,
          hour: '2-digit',
          minute: '2-digit',
          ...(style === 'long' ? { day: 'numeric', month: 'short' } : {}),
        }
      : {
          timeZone: ARGENTINA_TIME_ZONE,
          day: 'numeric',
          month: style === 'long' ? 'long' : 'numeric',
          ...(style === 'long' ? { weekday: 'long' } : {}),
        };
  return dateTimeFormat(locale, options).format(new Date(start));
}

/** The section on an endpoint's page: the latest retry's progress for every role, the form for those who may. */
export function RetrySection(props: {
  locale: Locale;
  r: RetryHealthMessages;
  endpointId: string;
  csrfToken: string;
  canWrite: boolean;
  retries: WebhookRetry[];
  circuitOpen: boolean;
  input: RetryInput;
  errors: RetryFormErrors;
  errorHeading: string;
  alert?: string | undefined;
}) {
  const { r, locale, errors } = props;
  const latest = props.retries[0];
  const entries = (Object.entries(errors) as [keyof RetryInput, RetryFormErrors[keyof RetryInput]][]).filter(
    (entry): entry is [keyof RetryInput, NonNullable<RetryFormErrors[keyof RetryInput]>] => !!entry[1],
  );
  const invalid = (name: keyof RetryInput) =>
    errors[name] ? { 'aria-invalid': 'true' as const, 'aria-describedby': `e-retry-${name} h-retry-times` } : {};
  return (
    <section aria-labelledby="retry">
      <h2 id="retry">{r.retryTitle}</h2>
      {latest ? (
        <div class="retry-progress">
          <p role="status" id="retry-progress">
            <strong>{r.retryProgress(latest.done, latest.total)}</strong> ({r.retryStates[latest.state]}).{' '}
            {latest.failed > 0 ? r.retryFailed(latest.failed) : null}{' '}
            {latest.canceled > 0 ? r.retryCanceled(latest.canceled) : null}
          </p>
          <p class="hint">
            {r.retryRange(timeOf(locale, latest.from), timeOf(locale, latest.to))}{' '}
            {latest.state === 'running' && props.circuitOpen ? r.retryWaitsForCircuit : null}
          </p>
        </div>
      ) : (
        <p>{r.retryNone}</p>
      )}
      {props.canWrite ? (
        <>
          {entries.length > 0 || props.alert ? (
            <div class="error-summary" role="alert" tabIndex={-1} id="retry-errors">
              <h3>{props.errorHeading}</h3>
              {props.alert ? <p>{props.alert}</p> : null}
              {entries.length ? (
                <ul>
                  {entries.map(([name, problem]) => (
                    <li>
                      <a href={`#r-${name}`}>
                        {r.retryFields[name]}: {r.retryProblems[problem]}
                      </a>
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          ) : null}
          <p class="hint">{r.retryHint(latest?.per_second ?? 10)}</p>
          <form method="post" action={`/webhooks/${props.endpointId}/retries`} novalidate>
            <input type="hidden" name="_csrf" value={props.csrfToken} />
            {(['from', 'to'] as const).map((name) => (
              <div class={errors[name] ? 'field invalid' : 'field'}>
                <label for={`r-${name}`}>{name === 'from' ? r.retryFrom : r.retryTo}</label>
                {errors[name] ? (
                  <p class="field-error" id={`e-retry-${name}`}>
                    {r.retryProblems[errors[name]]}
                  </p>
                ) : null}
                <input
                  id={`r-${name}`}
                  name={name}
                  type="datetime-local"
                  required
                  value={props.input[name]}
                  {...(errors[name] ? invalid(name) : { 'aria-describedby': 'h-retry-times' })}
                />
              </div>
            ))}
            <p class="hint" id="h-retry-times">
              {r.retryTimes}
            </p>
            <button type="submit">{r.retrySubmit}</button>
          </form>
        </>
      ) : null}
    </section>
  );
}

const CHART = { width: 640, height: 190, left: 44, right: 632, top: 12, bottom: 150 };

/** Success rate per bucket as bars (no bar where there was no attempt), with a title and a description. */
function RateChart(props: {
  locale: Locale;
  r: RetryHealthMessages;
  id: string;
  label: string;
  window: WebhookHealthWindow;
  granularity: 'hour' | 'day';
}) {
  const { r, locale, window, id } = props;
  const plotWidth = CHART.right - CHART.left;
  const plotHeight = CHART.bottom - CHART.top;
  const slot = plotWidth / window.buckets.length;
  const barWidth = Math.max(2, slot * 0.7);
  const y = (rate: number) => CHART.bottom - rate * plotHeight;
  const rate = window.success_rate === null ? r.noValue : r.percent(window.success_rate);
  const every = props.granularity === 'hour' ? 3 : 1;
  return (
    <div class="chart-wrap" tabIndex={0} role="region" aria-label={r.chartTitle(props.label)}>
      <svg viewBox={`0 0 ${CHART.width} ${CHART.height}`} role="img" aria-labelledby={`${id}-title ${id}-desc`} focusable="false">
        <title id={`${id}-title`}>{r.chartTitle(props.label)}</title>
        <desc id={`${id}-desc`}>{r.chartDesc(props.label, window.attempts, rate)}</desc>
        <g class="grid">
          {[0, 0.5, 1].map((tick) => (
            <>
              <line x1={CHART.left} x2={CHART.right} y1={y(tick)} y2={y(tick)} />
              <text x={CHART.left - 6} y={y(tick) + 4} text-anchor="end">
                {r.percent(tick)}
              </text>
            </>
          ))}
        </g>
        {window.buckets.map((bucket, index) => {
          const x = CHART.left + index * slot + (slot - barWidth) / 2;
          return (
            <g class="bar">
              {bucket.success_rate === null ? null : (
                <rect
                  class={bucket.success_rate >= 0.95 ? 's-approved' : 's-rejected'}
                  x={x}
                  y={y(bucket.success_rate)}
                  width={barWidth}
                  height={Math.max(1, bucket.success_rate * plotHeight)}
                >
                  <title>{`${bucketLabel(locale, bucket.start, props.granularity, 'long')}: ${r.percent(bucket.success_rate)} (${bucket.attempts})`}</title>
                </rect>
              )}
              {index % every === 0 ? (
                <text class="month" x={x + barWidth / 2} y={CHART.bottom + 16} text-anchor="middle">
                  {bucketLabel(locale, bucket.start, props.granularity, 'short')}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
    </div>
  );
}

function WindowHealth(props: {
  locale: Locale;
  r: RetryHealthMessages;
  id: string;
  label: string;
  window: WebhookHealthWindow;
  granularity: 'hour' | 'day';
}) {
  const { r, locale, window, label, granularity } = props;
  const percent = (value: number | null) => (value === null ? r.noValue : r.percent(value));
  const ms = (value: number | null) => (value === null ? r.noValue : r.ms(value));
  return (
    <section class="usage-chart health-window" aria-labelledby={`${props.id}-heading`}>
      <h3 id={`${props.id}-heading`}>{label}</h3>
      <dl class="facts" id={`${props.id}-figures`}>
        <dt>{r.attempts}</dt>
        <dd>{numberOf(locale, window.attempts)}</dd>
        <dt>{r.successRate}</dt>
        <dd>{percent(window.success_rate)}</dd>
        <dt>{r.p95}</dt>
        <dd>{ms(window.p95_ms)}</dd>
      </dl>
      {window.attempts === 0 ? (
        <p>{r.noAttempts}</p>
      ) : (
        <>
          <RateChart locale={locale} r={r} id={`${props.id}-chart`} label={label} window={window} granularity={granularity} />
          <details>
            <summary>{granularity === 'hour' ? r.byHour : r.byDay}</summary>
            <TableRegion label={label}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{granularity === 'hour' ? r.hour : r.day}</th>
                    <th scope="col" class="number">
                      {r.attempts}
                    </th>
                    <th scope="col" class="number">
                      {r.successRate}
                    </th>
                    <th scope="col" class="number">
                      {r.p95}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {window.buckets.map((bucket) => (
                    <tr>
                      <th scope="row">
                        <time dateTime={bucket.start}>{bucketLabel(locale, bucket.start, granularity, 'long')}</time>
                      </th>
                      <td class="number">{bucket.attempts}</td>
                      <td class="number">{percent(bucket.success_rate)}</td>
                      <td class="number">{ms(bucket.p95_ms)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableRegion>
          </details>
        </>
      )}
    </section>
  );
}

/** The endpoint's health over 24 hours (by hour) and 7 days (by day). */
export function HealthSection(props: { locale: Locale; r: RetryHealthMessages; health: WebhookHealth }) {
  const { r, locale, health } = props;
  return (
    <section aria-labelledby="health">
      <h2 id="health">{r.healthTitle}</h2>
      <p class="hint">{r.healthHint}</p>
      <WindowHealth locale={locale} r={r} id="health-24h" label={r.last24h} window={health.last_24h} granularity="hour" />
      <WindowHealth locale={locale} r={r} id="health-7d" label={r.last7d} window={health.last_7d} granularity="day" />
    </section>
  );
}
