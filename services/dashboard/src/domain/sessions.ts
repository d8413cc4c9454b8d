import { calendarDay } from './locale';
import {
  OUTCOMES,
  REASON_CODE_PATTERN,
  SESSION_STATUSES,
  idPattern,
  type Mode,
  type Outcome,
  type ProjectId,
  type SessionStatus,
} from '@idv/contracts';

/** Sessions a page of the list shows. */
export const SESSIONS_PAGE_SIZE = 50;

/** The sessions list as its readers filter it; every field but the mode may be left out. */
export interface SessionsFilter {
  mode: Mode;
  status: SessionStatus | null;
  outcome: Outcome | null;
  reason: string | null;
  project: ProjectId | null;
  ref: string | null;
  /** Argentina's calendar days, both included (YYYY-MM-DD). */
  from: string | null;
  to: string | null;
  /** The list's opaque cursor (the sessions service signs it). */
  cursor: string | null;
}

export type SessionsFilterField = 'mode' | 'status' | 'outcome' | 'reason' | 'project' | 'ref' | 'from' | 'to' | 'cursor';

const PROJECT_ID = idPattern('project');

const oneOf =
  <T extends string>(values: readonly T[]) =>
  (value: string): T | null =>
    (values as readonly string[]).includes(value) ? (value as T) : null;

/**
 * The filter a query string asks for. A value the form would not send is left out and named, so the page
 * says which filter it did not take instead of failing or quietly showing everything.
 */
export function parseSessionsFilter(query: Record<string, unknown>): { filter: SessionsFilter; invalid: SessionsFilterField[] } {
  const invalid: SessionsFilterField[] = [];
  const read = <T>(field: SessionsFilterField, parse: (value: string) => T | null, maxLength = 100): T | null => {
    const value = query[field];
    if (value === undefined || value === '') return null;
    const parsed = typeof value === 'string' && value.length <= maxLength ? parse(value) : null;
    if (parsed === null) invalid.push(field);
    return parsed;
  };
  const from = read('from', calendarDay);
  let to = read('to', calendarDay);
  if (from && to && from > to) {
    invalid.push('to');
    to = null;
  }
  const filter: SessionsFilter = {
    mode: read('mode', oneOf(['live', 'test'] as const)) ?? 'live',
    status: read('status', oneOf(SESSION_STATUSES)),
    outcome: read('outcome', oneOf(OUTCOMES)),
    reason: read('reason', (value) => (REASON_CODE_PATTERN.test(value) ? value : null)),
    project: read('project', (value) => (PROJECT_ID.test(value) ? (value as ProjectId) : null)),
    // Searched as the integrator sent it: exact, up to the API's 255 characters.
    ref: read('ref', (value) => (value.trim() === '' ? null : value), 255),
    from,
    to,
    cursor: read('cursor', (value) => (/^[A-Za-z0-9_.-]{1,512}$/.test(value) ? value : null), 512),
  };
  return { filter, invalid };
}

/** Midnight at the start of an Argentine calendar day (Argentina keeps UTC−3 all year, without summer time). */
export const argentineDayStart = (day: string): Date => new Date(`${day}T00:00:00.000-03:00`);

/** The sessions service's query for a filter: days become instants, `to` the start of the day after. */
export function listQuery(filter: SessionsFilter, limit: number): Record<string, string> {
  const query: Record<string, string> = { mode: filter.mode, limit: String(limit) };
  if (filter.status) query.status = filter.status;
  if (filter.outcome) query.outcome = filter.outcome;
  if (filter.reason) query.reason_code = filter.reason;
  if (filter.project) query.project_id = filter.project;
  if (filter.ref) query.external_ref = filter.ref;
  if (filter.from) query.created_from = argentineDayStart(filter.from).toISOString();
  if (filter.to) query.created_to = new Date(argentineDayStart(filter.to).getTime() + 86_400_000).toISOString();
  if (filter.cursor) query.cursor = filter.cursor;
  return query;
}

/** The page's address for a filter (another cursor, or none: the newest). */
export function sessionsAddress(filter: SessionsFilter, cursor: string | null = null): string {
  const params = new URLSearchParams();
  if (filter.mode !== 'live') params.set('mode', filter.mode);
  if (filter.status) params.set('status', filter.status);
  if (filter.outcome) params.set('outcome', filter.outcome);
  if (filter.reason) params.set('reason', filter.reason);
  if (filter.project) params.set('project', filter.project);
  if (filter.ref) params.set('ref', filter.ref);
  if (filter.from) params.set('from', filter.from);
  if (filter.to) params.set('to', filter.to);
  if (cursor) params.set('cursor', cursor);
  const query = params.toString();
  return query === '' ? '/sessions' : `/sessions?${query}`;
}
