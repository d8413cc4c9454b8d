import { calendarDay } from './locale';
import type { UserId } from '@idv/contracts';

/**
 * The audit log as its readers filter it: by kind of action (each group a set of action prefixes), by
 * who acted (a member, or the service's operators as one), and by Argentina's calendar days.
 */
export const AUDIT_GROUPS = ['sign_in', 'keys', 'flows', 'sessions', 'webhooks', 'members', 'account'] as const;
export type AuditGroup = (typeof AUDIT_GROUPS)[number];

export const AUDIT_GROUP_PREFIXES: Record<AuditGroup, readonly string[]> = {
  sign_in: ['user.'],
  keys: ['api_key.'],
  flows: ['config.', 'project.'],
  /** Personal data shown, images, evidence, cancellations. */
  sessions: ['session.'],
  /** Endpoints created, edited, rotated, tested, deleted; events redelivered. */
  webhooks: ['webhook_endpoint.', 'webhook_delivery.'],
  members: ['member.'],
  account: ['account.', 'audit.', 'usage.', 'balance.', 'notification.'],
};

/** Entries a page shows; older ones are reached by the cursor (the last id shown). */
export const AUDIT_PAGE_SIZE = 50;

export interface AuditFilter {
  group: AuditGroup | null;
  /** A member's user id, or every operator of the service. */
  actor: UserId | 'operator' | null;
  /** Argentina's calendar days, both included (YYYY-MM-DD). */
  from: string | null;
  to: string | null;
  /** Entries older than this id (the cursor). */
  before: number | null;
}

export type AuditFilterField = 'group' | 'actor' | 'from' | 'to' | 'before';

const USER_ID = /^usr_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * The filter a query string asks for. A value that is not one the form offers is left out and named,
 * so the page says which one it did not take rather than failing or silently showing everything.
 */
export function parseAuditFilter(query: Record<string, unknown>): { filter: AuditFilter; invalid: AuditFilterField[] } {
  const invalid: AuditFilterField[] = [];
  const text = (field: AuditFilterField): string | null => {
    const value = query[field];
    if (value === undefined || value === '') return null;
    if (typeof value !== 'string' || value.length > 100) {
      invalid.push(field);
      return null;
    }
    return value;
  };
  const checked = <T>(field: AuditFilterField, value: string | null, parse: (value: string) => T | null): T | null => {
    if (value === null) return null;
    const parsed = parse(value);
    if (parsed === null) invalid.push(field);
    return parsed;
  };
  const filter: AuditFilter = {
    group: checked('group', text('group'), (value) =>
      (AUDIT_GROUPS as readonly string[]).includes(value) ? (value as AuditGroup) : null,
    ),
    actor: checked('actor', text('actor'), (value) =>
      value === 'operator' || USER_ID.test(value) ? (value as UserId | 'operator') : null,
    ),
    from: checked('from', text('from'), calendarDay),
    to: checked('to', text('to'), calendarDay),
    before: checked('before', text('before'), (value) => (/^[1-9]\d{0,15}$/.test(value) ? Number(value) : null)),
  };
  return { filter, invalid };
}

/** The query string of a filter (the cursor apart), for the next page's link and the export's. */
export function auditQuery(filter: AuditFilter, before: number | null = null): string {
  const params = new URLSearchParams();
  if (filter.group) params.set('group', filter.group);
  if (filter.actor) params.set('actor', filter.actor);
  if (filter.from) params.set('from', filter.from);
  if (filter.to) params.set('to', filter.to);
  if (before !== null) params.set('before', String(before));
  const query = params.toString();
  return query === '' ? '' : `?${query}`;
}

/** The columns of the audit export: who, what, when and from where, no secret (none is ever logged). */
export const AUDIT_CSV_COLUMNS = ['at', 'actor_kind', 'actor_name', 'actor_email', 'action', 'target', 'address'] as const;
