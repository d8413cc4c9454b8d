import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, isId, type SessionId, type WebhookEventType } from '@idv/contracts';

/** The events an endpoint may subscribe to from the dashboard (`test` is sent on demand, never subscribed). */
export const SUBSCRIBABLE_EVENTS = WEBHOOK_EVENT_TYPES.filter((type) => type !== 'test');
/** The events that tell a session's outcome: an endpoint without one of them never learns a verdict. */
export const VERDICT_EVENTS: readonly WebhookEventType[] = [
  'verification_session.approved',
  'verification_session.rejected',
  'verification_session.completed',
];

export type WebhookFormField = 'url' | 'description' | 'events';
export type WebhookFormProblem = 'required' | 'too_long' | 'invalid_url' | 'invalid_characters' | 'no_events';
export type WebhookFormErrors = Partial<Record<WebhookFormField, WebhookFormProblem>>;

export interface EndpointInput {
  url: string;
  description: string;
  events: WebhookEventType[];
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * An endpoint's form as the page checks it before the API does (the API's own rules, such as https only
 * or no private address, come back from it as a refusal with its reason).
 */
export function parseEndpointForm(
  fields: Record<string, string>,
  events: readonly string[],
): { input: EndpointInput; errors: WebhookFormErrors } {
  const errors: WebhookFormErrors = {};
  const url = (fields.url ?? '').trim();
  if (!url) errors.url = 'required';
  else if (url.length > 2048) errors.url = 'too_long';
  else if (CONTROL.test(url) || !URL.canParse(url)) errors.url = 'invalid_url';
  const description = (fields.description ?? '').trim();
  if ([...description].length > 500) errors.description = 'too_long';
  else if (CONTROL.test(description)) errors.description = 'invalid_characters';
  const chosen = SUBSCRIBABLE_EVENTS.filter((type) => events.includes(type));
  if (chosen.length === 0) errors.events = 'no_events';
  return { input: { url, description, events: chosen }, errors };
}

type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The delivery log's filters as the page's address carries them (all optional). */
export interface DeliveryLogFilter {
  status: DeliveryStatus | null;
  eventType: WebhookEventType | null;
  session: string | null;
  /** Argentina's wall-clock minutes as the form's `datetime-local` writes them (YYYY-MM-DDTHH:MM). */
  from: string | null;
  to: string | null;
  cursor: string | null;
}

export type WebhookFilterField = 'status' | 'event_type' | 'session' | 'from' | 'to' | 'cursor';

const SESSION_ID = /^vs_[0-9A-HJKMNP-TV-Z]{26}$/;
const LOCAL_MINUTE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;
const CURSOR = /^[A-Za-z0-9_.-]{1,512}$/;

/** Argentina has kept UTC−3 all year since 2009. */
const ARGENTINA_OFFSET = '-03:00';

/** A `datetime-local` value read as Argentina's time, as the instant the API filters by; null if it is not one. */
export function argentinaInstant(local: string): string | null {
  const match = LOCAL_MINUTE.exec(local);
  if (!match) return null;
  const date = new Date(`${local}:00.000${ARGENTINA_OFFSET}`);
  if (Number.isNaN(date.getTime())) return null;
  // Refuses what Date would roll over (the 31st of April, 24:00).
  const back = new Date(date.getTime() - 3 * 3600_000).toISOString().slice(0, 16);
  return back === local ? date.toISOString() : null;
}

/**
 * The filters a query string asks for. A value that is not one the form offers is left out and named, so
 * the page says which one it did not take rather than failing or silently showing everything.
 */
export function parseDeliveryFilter(query: Record<string, unknown>): {
  filter: DeliveryLogFilter;
  invalid: WebhookFilterField[];
} {
  const invalid: WebhookFilterField[] = [];
  const take = <T>(field: WebhookFilterField, key: string, accept: (value: string) => T | null): T | null => {
    const value = query[key];
    if (value === undefined || value === '') return null;
    const accepted = typeof value === 'string' && value.length <= 512 ? accept(value.trim()) : null;
    if (accepted === null) invalid.push(field);
    return accepted;
  };
  const filter: DeliveryLogFilter = {
    status: take('status', 'status', (value) =>
      (DELIVERY_STATUSES as readonly string[]).includes(value) ? (value as DeliveryStatus) : null,
    ),
    eventType: take('event_type', 'event_type', (value) =>
      (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value) ? (value as WebhookEventType) : null,
    ),
    session: take('session', 'session', (value) => (SESSION_ID.test(value) ? value : null)),
    from: take('from', 'from', (value) => (argentinaInstant(value) ? value : null)),
    to: take('to', 'to', (value) => (argentinaInstant(value) ? value : null)),
    cursor: take('cursor', 'cursor', (value) => (CURSOR.test(value) ? value : null)),
  };
  return { filter, invalid };
}

/** The query string of a filter with a cursor (or none: the newest page), for the page's links. */
export function deliveryFilterQuery(filter: DeliveryLogFilter, cursor: string | null = null): string {
  const params = new URLSearchParams();
  if (filter.status) params.set('status', filter.status);
  if (filter.eventType) params.set('event_type', filter.eventType);
  if (filter.session) params.set('session', filter.session);
  if (filter.from) params.set('from', filter.from);
  if (filter.to) params.set('to', filter.to);
  if (cursor) params.set('cursor', cursor);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The internal route's query of a filter. */
export function deliveryLogQuery(filter: DeliveryLogFilter, limit: number): Record<string, string> {
  const query: Record<string, string> = { limit: String(limit) };
  if (filter.status) query.status = filter.status;
  if (filter.eventType) query.event_type = filter.eventType;
  if (filter.session) query.session_id = filter.session;
  const from = filter.from ? argentinaInstant(filter.from) : null;
  const to = filter.to ? argentinaInstant(filter.to) : null;
  if (from) query.from = from;
  // "Until 10:15" includes the minute 10:15.
  if (to) query.to = new Date(Date.parse(to) + 60_000).toISOString();
  if (filter.cursor) query.cursor = filter.cursor;
  return query;
}

/**
 * The session whose personal data a delivery's body carries (its document, verified channels or form answers,
 * as the project opted in), or null: a body that carries some is shown only with an entry in the session's
 * access trail, as the session page's "show" is.
 */
export function personalDataSessionOf(body: string | null): SessionId | null {
  if (body === null) return null;
  let session: unknown;
  try {
    session = (JSON.parse(body) as { data?: { object?: unknown } }).data?.object;
  } catch {
    return null;
  }
  if (typeof session !== 'object' || session === null) return null;
  const { id, result } = session as { id?: unknown; result?: Record<string, unknown> };
  if (!isId('session', id) || typeof result !== 'object' || result === null) return null;
  return result.document || result.verified_channels || result.form_data ? id : null;
}
