import type { Account, AccountWebhookEndpoint, WebhookDelivery, WebhookDeliveryAttempt } from '@idv/contracts';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '@idv/contracts';
import type { Locale, Messages } from '../../domain/i18n';
import type { WebhookMessages } from '../../domain/webhook-messages';
import {
  SUBSCRIBABLE_EVENTS,
  VERDICT_EVENTS,
  deliveryFilterQuery,
  type DeliveryLogFilter,
  type EndpointInput,
  type WebhookFilterField,
  type WebhookFormErrors,
} from '../../domain/webhooks';
import { COPY_SCRIPT_PATH, Flash, PostButton, renderPage, TableRegion, timeOf } from './layout';
import { HealthSection, RetrySection } from './webhook-health';
import type { RetryHealthMessages } from '../../domain/webhook-health-messages';
import type { RetryFormErrors, RetryInput } from '../../domain/webhook-retry';
import type { WebhookHealth, WebhookRetry } from '@idv/contracts';

interface WebhooksBase {
  locale: Locale;
  messages: Messages;
  w: WebhookMessages;
  csrfToken: string;
  account: Account;
}

function frame(view: WebhooksBase, title: string, scripts?: string[]) {
  return {
    locale: view.locale,
    messages: view.messages,
    title,
    signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'webhooks' as const },
    ...(scripts ? { scripts } : {}),
  };
}

/** The form's problems, each linked to its field (as the other forms' summaries). */
function FormErrors(props: { w: WebhookMessages; heading: string; errors: WebhookFormErrors; alert?: string | undefined }) {
  const entries = Object.entries(props.errors).filter(
    (entry): entry is [keyof WebhookFormErrors, NonNullable<(typeof entry)[1]>] => !!entry[1],
  );
  if (entries.length === 0 && !props.alert) return null;
  return (
    <div class="error-summary" role="alert" tabIndex={-1} id="error-summary">
      <h2>{props.heading}</h2>
      {props.alert ? <p>{props.alert}</p> : null}
      {entries.length ? (
        <ul>
          {entries.map(([name, problem]) => (
            <li>
              <a href={`#f-${name}`}>
                {props.w.fields[name]}: {props.w.problems[problem]}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** URL, description and events: the create form's and the edit form's fields. */
function EndpointFields(props: { w: WebhookMessages; input: Partial<EndpointInput>; errors: WebhookFormErrors }) {
  const { w, input, errors } = props;
  const chosen = input.events ?? [];
  const invalid = (name: keyof WebhookFormErrors) =>
    errors[name] ? { 'aria-invalid': 'true' as const, 'aria-describedby': `e-${name}` } : {};
  return (
    <>
      <div class={errors.url ? 'field invalid' : 'field'}>
        <label for="f-url">{w.url}</label>
        <p class="hint" id="h-url">
          {w.urlHint}
        </p>
        {errors.url ? (
          <p class="field-error" id="e-url">
            {w.problems[errors.url]}
          </p>
        ) : null}
        <input
          id="f-url"
          name="url"
          type="url"
          required
          maxLength={2048}
          value={input.url ?? ''}
          autocomplete="url"
          {...invalid('url')}
        />
      </div>
      <div class={errors.description ? 'field invalid' : 'field'}>
        <label for="f-description">{w.description}</label>
        {errors.description ? (
          <p class="field-error" id="e-description">
            {w.problems[errors.description]}
          </p>
        ) : null}
        <input
          id="f-description"
          name="description"
          type="text"
          maxLength={500}
          value={input.description ?? ''}
          autocomplete="off"
          {...invalid('description')}
        />
      </div>
      <fieldset class={errors.events ? 'field invalid' : 'field'} id="f-events">
        <legend>{w.events}</legend>
        <p class="hint">{w.eventsHint}</p>
        {errors.events ? (
          <p class="field-error" id="e-events">
            {w.problems[errors.events]}
          </p>
        ) : null}
        {SUBSCRIBABLE_EVENTS.map((type) => (
          <label class="choice">
            <input type="checkbox" name="events" value={type} checked={chosen.includes(type)} /> {w.eventNames[type]}{' '}
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
    </>
  );
}

function CircuitSummary(props: { locale: Locale; w: WebhookMessages; endpoint: AccountWebhookEndpoint }) {
  const { w, locale } = props;
  const { circuit, waiting, next_attempt_at: next } = props.endpoint.state;
  const explanation =
    circuit.state === 'open' && circuit.open_until
      ? w.circuitOpenUntil(timeOf(locale, circuit.open_until, 'second'))
      : circuit.state === 'half_open' && circuit.open_until
        ? w.circuitHalfOpen(timeOf(locale, circuit.open_until, 'second'))
        : w.circuitClosed(circuit.consecutive_failures);
  return (
    <>
      <p>
        <strong class={`status circuit-${circuit.state}`}>{w.circuitStates[circuit.state]}</strong> {explanation}
      </p>
      <p>
        {waiting > 0 ? w.waiting(waiting) : w.nothingWaiting} {next ? <>{w.nextAttempt(timeOf(locale, next, 'second'))}</> : null}
      </p>
    </>
  );
}

/** The list of endpoints and, for those who may, the form to add one. */
export function webhooksPage(
  view: WebhooksBase & {
    endpoints: AccountWebhookEndpoint[];
    canWrite: boolean;
    nonce: string;
    input?: Partial<EndpointInput>;
    errors?: WebhookFormErrors;
    alert?: string;
    notice?: string;
  },
): string {
  const { w, locale } = view;
  const errors = view.errors ?? {};
  return renderPage(
    frame(view, w.title),
    <>
      <h1>{w.title}</h1>
      <p class="lead">{w.lead}</p>
      <Flash notice={view.notice} />
      {view.endpoints.length === 0 ? (
        <p>{w.none}</p>
      ) : (
        <TableRegion label={w.title}>
          <table>
            <thead>
              <tr>
                <th scope="col">{w.columns.url}</th>
                <th scope="col">{w.columns.events}</th>
                <th scope="col">{w.columns.status}</th>
                <th scope="col">{w.columns.circuit}</th>
                <th scope="col">{w.columns.created}</th>
              </tr>
            </thead>
            <tbody>
              {view.endpoints.map((endpoint) => (
                <tr>
                  <th scope="row">
                    <a href={`/webhooks/${endpoint.id}`}>{endpoint.url}</a>
                    {endpoint.description ? (
                      <>
                        <br />
                        {endpoint.description}
                      </>
                    ) : null}
                  </th>
                  <td>{endpoint.events.map((type) => w.eventNames[type]).join(', ')}</td>
                  <td>{w.statuses[endpoint.status]}</td>
                  <td>{w.circuitStates[endpoint.state.circuit.state]}</td>
                  <td>{timeOf(locale, endpoint.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {view.canWrite ? (
        <section aria-labelledby="create-endpoint">
          <h2 id="create-endpoint">{w.createTitle}</h2>
          <FormErrors w={w} heading={view.messages.errorSummary} errors={errors} alert={view.alert} />
          <form method="post" action="/webhooks" novalidate>
            <input type="hidden" name="_csrf" value={view.csrfToken} />
            <input type="hidden" name="nonce" value={view.nonce} />
            <EndpointFields w={w} input={view.input ?? { events: [...VERDICT_EVENTS] }} errors={errors} />
            <button type="submit">{w.create}</button>
          </form>
        </section>
      ) : null}
    </>,
  );
}

/** The one page that shows a secret: after creation or rotation (never cached, as every page). */
export function endpointSecretPage(
  view: WebhooksBase & { endpoint: AccountWebhookEndpoint & { secret: string }; rotated: boolean },
): string {
  const { w, locale, endpoint } = view;
  const title = view.rotated ? w.rotatedTitle : w.createdTitle;
  const overlap = endpoint.state.previous_secret_expires_at;
  return renderPage(
    frame(view, title, [COPY_SCRIPT_PATH]),
    <>
      <h1>{title}</h1>
      <p>
        {endpoint.url} <code class="id">{endpoint.id}</code>
      </p>
      {view.rotated && overlap ? <p class="notice">{w.overlapUntil(timeOf(locale, overlap, 'second'))}</p> : null}
      <p class="warning" role="alert">
        {w.secretWarning}
      </p>
      <div class="field">
        <label for="secret">{w.secretLabel}</label>
        <input id="secret" type="text" readOnly value={endpoint.secret} class="secret" autocomplete="off" spellcheck={false} />
        <button type="button" class="secondary" data-copy="secret" data-copied="✓" hidden>
          {w.copy}
        </button>
      </div>
      <p>
        <a href={`/webhooks/${endpoint.id}`}>{w.done}</a>
      </p>
    </>,
  );
}

function LogFilters(props: { w: WebhookMessages; endpointId: string; filter: DeliveryLogFilter }) {
  const { w, filter } = props;
  const selected = (on: boolean) => (on ? { selected: true } : {});
  return (
    <form method="get" action={`/webhooks/${props.endpointId}`} class="filters" aria-label={w.filters}>
      <div class="field">
        <label for="f-status">{w.status}</label>
        <select id="f-status" name="status">
          <option value="">{w.anyStatus}</option>
          {DELIVERY_STATUSES.map((status) => (
            <option value={status} {...selected(filter.status === status)}>
              {w.deliveryStatuses[status]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="f-event-type">{w.eventType}</label>
        <select id="f-event-type" name="event_type">
          <option value="">{w.anyEvent}</option>
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <option value={type} {...selected(filter.eventType === type)}>
              {w.eventNames[type]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="f-session">{w.session}</label>
        <input
          id="f-session"
          name="session"
          type="text"
          value={filter.session ?? ''}
          placeholder={w.sessionHint}
          autocomplete="off"
          spellcheck={false}
        />
      </div>
      <div class="field">
        <label for="f-from">{w.from}</label>
        <input id="f-from" name="from" type="datetime-local" value={filter.from ?? ''} aria-describedby="h-times" />
      </div>
      <div class="field">
        <label for="f-to">{w.to}</label>
        <input id="f-to" name="to" type="datetime-local" value={filter.to ?? ''} aria-describedby="h-times" />
      </div>
      <p class="hint" id="h-times">
        {w.timesHint}
      </p>
      <button type="submit">{w.apply}</button> <a href={`/webhooks/${props.endpointId}`}>{w.clear}</a>
    </form>
  );
}

function LogTable(props: { locale: Locale; w: WebhookMessages; endpointId: string; deliveries: WebhookDelivery[] }) {
  const { w, locale } = props;
  return (
    <TableRegion label={w.logTitle}>
      <table>
        <thead>
          <tr>
            <th scope="col">{w.logColumns.at}</th>
            <th scope="col">{w.logColumns.event}</th>
            <th scope="col">{w.logColumns.attempt}</th>
            <th scope="col">{w.logColumns.status}</th>
            <th scope="col">{w.logColumns.http}</th>
            <th scope="col">{w.logColumns.duration}</th>
            <th scope="col">{w.logColumns.reason}</th>
          </tr>
        </thead>
        <tbody>
          {props.deliveries.map((delivery) => (
            <tr>
              <td>
                <a href={`/webhooks/${props.endpointId}/deliveries/${delivery.id}`}>
                  <time dateTime={delivery.created_at}>{timeOf(locale, delivery.created_at, 'second')}</time>
                </a>
              </td>
              <td>
                <code>{delivery.event_type}</code>
              </td>
              <td>{delivery.attempt}</td>
              <td>{w.deliveryStatuses[delivery.status]}</td>
              <td>{delivery.http_status ?? w.noStatus}</td>
              <td>{delivery.duration_ms === null ? w.noStatus : w.ms(delivery.duration_ms)}</td>
              <td>{delivery.failure_reason ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

/** An endpoint: its circuit, the changes the role may make, and its delivery log with filters and pages. */
export function endpointPage(
  view: WebhooksBase & {
    endpoint: AccountWebhookEndpoint;
    canWrite: boolean;
    filter: DeliveryLogFilter;
    invalid: WebhookFilterField[];
    deliveries: WebhookDelivery[];
    next: string | null;
    input?: Partial<EndpointInput>;
    errors?: WebhookFormErrors;
    /** The edit form's refusal by the API (shown in its error summary). */
    formAlert?: string;
    alert?: string;
    notice?: string;
    /** The retry of failed deliveries (its latest runs and its form) and the health figures. */
    retry: {
      r: RetryHealthMessages;
      retries: WebhookRetry[];
      health: WebhookHealth;
      input: RetryInput;
      errors: RetryFormErrors;
      alert?: string;
    };
  },
): string {
  const { w, locale, endpoint, filter } = view;
  const errors = view.errors ?? {};
  const base = `/webhooks/${endpoint.id}`;
  const overlap = endpoint.state.previous_secret_expires_at;
  const input = view.input ?? { url: endpoint.url, description: endpoint.description, events: endpoint.events };
  const noVerdict = !endpoint.events.some((type) => VERDICT_EVENTS.includes(type));
  return renderPage(
    frame(view, w.endpointTitle(endpoint.url)),
    <>
      <p>
        <a href="/webhooks">{w.back}</a>
      </p>
      <h1>{w.endpointTitle(endpoint.url)}</h1>
      <p>
        <code class="id">{endpoint.id}</code> · {w.statuses[endpoint.status]}
        {endpoint.description ? ` · ${endpoint.description}` : ''}
      </p>
      <Flash notice={view.notice} alert={view.alert} />
      {endpoint.status === 'disabled' ? <p class="warning">{w.disabledNote}</p> : null}
      {noVerdict ? <p class="warning">{w.noVerdictEvent}</p> : null}
      <section aria-labelledby="circuit">
        <h2 id="circuit">{w.circuitTitle}</h2>
        <CircuitSummary locale={locale} w={w} endpoint={endpoint} />
      </section>
      <HealthSection locale={locale} r={view.retry.r} health={view.retry.health} />
      <RetrySection
        locale={locale}
        r={view.retry.r}
        endpointId={endpoint.id}
        csrfToken={view.csrfToken}
        canWrite={view.canWrite}
        retries={view.retry.retries}
        circuitOpen={endpoint.state.circuit.state === 'open'}
        input={view.retry.input}
        errors={view.retry.errors}
        errorHeading={view.messages.errorSummary}
        alert={view.retry.alert}
      />
      {view.canWrite ? (
        <>
          <section aria-labelledby="edit">
            <h2 id="edit">{w.editTitle}</h2>
            <FormErrors w={w} heading={view.messages.errorSummary} errors={errors} alert={view.formAlert} />
            <form method="post" action={base} novalidate>
              <input type="hidden" name="_csrf" value={view.csrfToken} />
              <EndpointFields w={w} input={input} errors={errors} />
              <button type="submit">{w.save}</button>
            </form>
          </section>
          <section aria-labelledby="state">
            <h2 id="state">{w.stateTitle}</h2>
            <form method="post" action={`${base}/status`} class="inline">
              <input type="hidden" name="_csrf" value={view.csrfToken} />
              <input type="hidden" name="status" value={endpoint.status === 'active' ? 'disabled' : 'active'} />
              <button type="submit" class="secondary">
                {endpoint.status === 'active' ? w.disable : w.enable}
              </button>
            </form>{' '}
            <a href={`${base}/delete`}>{w.deleteLink}</a>
          </section>
          <section aria-labelledby="secret">
            <h2 id="secret">{w.secretTitle}</h2>
            <p>{w.secretHidden}</p>
            {overlap ? <p>{w.overlapNow(timeOf(locale, overlap, 'second'))}</p> : null}
            <p class="hint">{w.rotateHint}</p>
            <PostButton action={`${base}/rotate`} csrfToken={view.csrfToken} label={w.rotate} secondary />
          </section>
          <section aria-labelledby="test">
            <h2 id="test">{w.testTitle}</h2>
            <p class="hint">{w.testHint}</p>
            <PostButton action={`${base}/test`} csrfToken={view.csrfToken} label={w.sendTest} secondary />
          </section>
        </>
      ) : overlap ? (
        <p>{w.overlapNow(timeOf(locale, overlap, 'second'))}</p>
      ) : null}
      <section aria-labelledby="log">
        <h2 id="log">{w.logTitle}</h2>
        {view.invalid.length > 0 ? (
          <div class="error-summary" role="alert">
            <ul>
              {view.invalid.map((field) => (
                <li>{w.invalid[field]}</li>
              ))}
            </ul>
          </div>
        ) : null}
        <LogFilters w={w} endpointId={endpoint.id} filter={filter} />
        {view.deliveries.length === 0 ? (
          <p>{w.emptyLog}</p>
        ) : (
          <LogTable locale={locale} w={w} endpointId={endpoint.id} deliveries={view.deliveries} />
        )}
        <p>
          {filter.cursor ? <a href={`${base}${deliveryFilterQuery({ ...filter, cursor: null })}`}>{w.newest}</a> : null}{' '}
          {view.next ? <a href={`${base}${deliveryFilterQuery(filter, view.next)}`}>{w.older}</a> : null}
        </p>
      </section>
    </>,
  );
}

export function deleteEndpointPage(view: WebhooksBase & { endpoint: AccountWebhookEndpoint }): string {
  const { w, endpoint } = view;
  return renderPage(
    frame(view, w.deleteTitle(endpoint.url)),
    <>
      <h1>{w.deleteTitle(endpoint.url)}</h1>
      <p>
        <code class="id">{endpoint.id}</code>
      </p>
      <p>{w.deleteBody}</p>
      <PostButton action={`/webhooks/${endpoint.id}/delete`} csrfToken={view.csrfToken} label={w.deleteConfirm} />{' '}
      <a href={`/webhooks/${endpoint.id}`}>{w.cancel}</a>
    </>,
  );
}

function HeaderTable(props: { label: string; headers: Record<string, string> }) {
  return (
    <TableRegion label={props.label}>
      <table>
        <tbody>
          {Object.entries(props.headers).map(([name, value]) => (
            <tr>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td>
                <code>{value}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

/** One attempt: when and how it went, the request as sent and the response; bodies only for the roles that may see personal data. */
export function attemptPage(
  view: WebhooksBase & {
    endpoint: AccountWebhookEndpoint;
    attempt: WebhookDeliveryAttempt;
    showBodies: boolean;
    canWrite: boolean;
    alert?: string;
  },
): string {
  const { w, locale, attempt } = view;
  const { request, response } = attempt;
  const base = `/webhooks/${view.endpoint.id}`;
  const title = w.attemptTitle(attempt.event_type, attempt.attempt);
  const sentNothing = attempt.error === 'circuit_breaker_open';
  return renderPage(
    frame(view, title),
    <>
      <p>
        <a href={base}>{w.backToEndpoint}</a>
      </p>
      <h1>{title}</h1>
      <Flash alert={view.alert} />
      <dl class="facts">
        <dt>{w.facts.at}</dt>
        <dd>
          <time dateTime={attempt.created_at}>{timeOf(locale, attempt.created_at, 'second')}</time>
        </dd>
        <dt>{w.facts.event}</dt>
        <dd>
          {w.eventNames[attempt.event_type]} <code>{attempt.event_type}</code>
        </dd>
        <dt>{w.facts.eventId}</dt>
        <dd>
          <code>{attempt.event_id}</code>
        </dd>
        <dt>{w.facts.status}</dt>
        <dd>{w.deliveryStatuses[attempt.status]}</dd>
        <dt>{w.facts.http}</dt>
        <dd>{attempt.http_status ?? w.noStatus}</dd>
        <dt>{w.facts.duration}</dt>
        <dd>{attempt.duration_ms === null ? w.noStatus : w.ms(attempt.duration_ms)}</dd>
        {attempt.failure_reason ? (
          <>
            <dt>{w.facts.reason}</dt>
            <dd>{attempt.failure_reason}</dd>
          </>
        ) : null}
      </dl>
      {view.canWrite ? (
        <section aria-labelledby="redeliver">
          <h2 id="redeliver">{w.redeliver}</h2>
          <p class="hint">{w.redeliverHint}</p>
          <PostButton
            action={`${base}/deliveries/${attempt.id}/redeliver`}
            csrfToken={view.csrfToken}
            label={w.redeliver}
            secondary
          />
        </section>
      ) : null}
      <section aria-labelledby="request">
        <h2 id="request">{w.requestTitle}</h2>
        {request ? (
          <>
            <p>{w.sentAt(timeOf(locale, request.sent_at, 'second'))}</p>
            <h3>{w.headers}</h3>
            <HeaderTable label={`${w.requestTitle}: ${w.headers}`} headers={request.headers} />
            <h3>{w.body}</h3>
            {!view.showBodies ? (
              <p class="notice">{w.bodyHidden}</p>
            ) : request.body === null ? (
              <p>{w.bodyGone}</p>
            ) : (
              <>
                {request.body_as_sent ? null : <p class="warning">{w.bodyNotAsSent}</p>}
                <pre class="exchange" tabIndex={0} aria-label={`${w.requestTitle}: ${w.body}`}>
                  {request.body}
                </pre>
              </>
            )}
          </>
        ) : (
          <p>{sentNothing ? w.nothingSent : w.notKept}</p>
        )}
      </section>
      <section aria-labelledby="response">
        <h2 id="response">{w.responseTitle}</h2>
        {response ? (
          <>
            <h3>{w.headers}</h3>
            <HeaderTable label={`${w.responseTitle}: ${w.headers}`} headers={response.headers} />
            <h3>{w.body}</h3>
            {!view.showBodies ? (
              <p class="notice">{w.bodyHidden}</p>
            ) : (
              <>
                <p class="hint">
                  {Buffer.byteLength(response.body) < response.body_bytes
                    ? w.bodyCut(Buffer.byteLength(response.body), response.body_bytes)
                    : w.bodyBytes(response.body_bytes)}
                </p>
                <pre class="exchange" tabIndex={0} aria-label={`${w.responseTitle}: ${w.body}`}>
                  {response.body === '' ? w.emptyBody : response.body}
                </pre>
              </>
            )}
          </>
        ) : (
          <p>{sentNothing ? w.nothingSent : request ? w.noResponse : w.notKept}</p>
        )}
      </section>
    </>,
  );
}
