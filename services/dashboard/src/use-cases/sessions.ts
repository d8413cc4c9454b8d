import {
  InternalCallError,
  isId,
  type AccountSession,
  type AccountSessionList,
  type ApiKey,
  type ProjectOverview,
  type SessionId,
} from '@idv/contracts';
import { csvLine } from '@idv/kit';
import { appendAudit, listAccessTrail } from '../adapters/audit.repository';
import { AUDIT_CSV_COLUMNS } from '../domain/audit';
import type { Locale } from '../domain/i18n';
import { imagesOffer } from '../domain/session-images';
import { evidenceDownloadsOf, mergeTrail, trailCsvCells, type TrailEntry } from './access-trail';
import { can } from '../domain/roles';
import { listQuery, SESSIONS_PAGE_SIZE, type SessionsFilter } from '../domain/sessions';
import { sessionTimeline, type TimelineItem } from '../domain/timeline';
import type { DashboardPorts } from './ports';
import type { Outcome } from './projects';
import type { Viewer } from './sign-in';

/** A page of the account's sessions and the names its filters offer (projects). */
export async function sessionsPage(
  ports: DashboardPorts,
  viewer: Viewer,
  filter: SessionsFilter,
): Promise<Outcome<{ kind: 'sessions'; list: AccountSessionList; projects: ProjectOverview[]; staleCursor: boolean }>> {
  if (!can(viewer.role, 'sessions.read')) return { kind: 'forbidden' };
  const projects = ports.platform.call('listProjects', { id: viewer.accountId });
  const list = async (query: Record<string, string>): Promise<{ list: AccountSessionList; staleCursor: boolean }> => {
    try {
      return {
        list: await ports.platform.call('listAccountSessions', { id: viewer.accountId }, undefined, query),
        staleCursor: false,
      };
    } catch (error) {
      // A cursor from another filter, or one the service no longer accepts: the newest page, and say so.
      if (error instanceof InternalCallError && error.status === 422 && filter.cursor) {
        const { cursor: _dropped, ...fresh } = query;
        const answer = await ports.platform.call('listAccountSessions', { id: viewer.accountId }, undefined, fresh);
        return { list: answer, staleCursor: true };
      }
      throw error;
    }
  };
  const [found, { data: projectList }] = await Promise.all([list(listQuery(filter, SESSIONS_PAGE_SIZE)), projects]);
  return { kind: 'sessions', ...found, projects: projectList };
}

/** What a session's page shows, and whether the reader may ask for its personal data. */
export interface SessionView {
  kind: 'session';
  session: AccountSession;
  /** The key that created it, as the keys page names it (null: a key since deleted from the list, or a try). */
  key: Pick<ApiKey, 'id' | 'name' | 'mode'> | null;
  project: ProjectOverview | null;
  /** The frozen configuration collects personal data the page may show, and this role may see it. */
  personalDataShown: boolean;
  mayShowPersonalData: boolean;
  /** The captured images: offered to show, refused to this role, or nothing (the configuration did not opt in). */
  images: 'show' | 'forbidden' | null;
  mayCancel: boolean;
  mayReadTrail: boolean;
  timeline: TimelineItem[];
}

/** Personal data the frozen configuration opted into keeping, that the session has. */
export function hasPersonalData(session: AccountSession): boolean {
  const result = session.result;
  return Boolean(result && (result.document || result.verified_channels || result.form_data));
}

/** The account's session, or null (not an id, or not the account's). */
export async function findSession(ports: DashboardPorts, viewer: Viewer, id: string): Promise<AccountSession | null> {
  if (!isId('session', id)) return null;
  try {
    return await ports.platform.call('getAccountSession', { id: viewer.accountId, sessionId: id });
  } catch (error) {
    if (error instanceof InternalCallError && error.status === 404) return null;
    throw error;
  }
}

/**
 * A session's page for a signed-in member: its states, the key that created it and its project. The
 * personal data is in the answer only when `show` is asked by a role that may see it, and that is audited
 * (`session.data_shown`) before the page is made.
 */
export async function sessionPage(
  ports: DashboardPorts,
  viewer: Viewer,
  id: string,
  show: { address: string } | null = null,
  /** The reader's language: the flow's messages in the timeline are its texts in it. */
  locale: Locale = 'es',
): Promise<Outcome<SessionView>> {
  if (!can(viewer.role, 'sessions.read')) return { kind: 'forbidden' };
  const session = await findSession(ports, viewer, id);
  if (!session) return { kind: 'not_found' };
  const ids = { id: viewer.accountId, sessionId: session.id };
  // The other parts of the page at once, now that the session is known to be this account's.
  const [keys, projects, flow, deliveries] = await Promise.all([
    ports.platform.call('listApiKeys', { id: viewer.accountId }),
    ports.platform.call('listProjects', { id: viewer.accountId }),
    ports.platform.call('getFlowTimeline', ids, undefined, { locale }),
    ports.platform.call('listSessionWebhookDeliveries', ids),
  ]);
  const mayShowPersonalData = can(viewer.role, 'sessions.personal') && hasPersonalData(session);
  if (show && !mayShowPersonalData) return { kind: 'forbidden' };
  if (show) {
    await appendAudit(ports.pool, {
      accountId: viewer.accountId,
      actorId: viewer.userId,
      action: 'session.data_shown',
      target: session.id,
      address: show.address,
    });
  }
  const key = keys.data.find((candidate) => candidate.id === session.api_key_id) ?? null;
  return {
    kind: 'session',
    session,
    timeline: sessionTimeline(session, key?.name ?? null, flow.data, deliveries.data),
    key: key ? { id: key.id, name: key.name, mode: key.mode } : null,
    project: projects.data.find((project) => project.id === session.project_id) ?? null,
    personalDataShown: show !== null,
    mayShowPersonalData,
    images: imagesOffer(viewer.role, session),
    mayCancel: can(viewer.role, 'sessions.cancel') && (session.status === 'pending' || session.status === 'in_progress'),
    mayReadTrail: can(viewer.role, 'audit.read'),
  };
}

/** Cancels a session that is not decided yet (a decided one is left as it is, as the API does); audited. */
export async function cancelSession(
  ports: DashboardPorts,
  viewer: Viewer,
  id: string,
  address: string,
): Promise<Outcome<{ kind: 'canceled'; session: AccountSession } | { kind: 'ended'; sessionId: SessionId }>> {
  if (!can(viewer.role, 'sessions.cancel')) return { kind: 'forbidden' };
  if (!isId('session', id)) return { kind: 'not_found' };
  let session: AccountSession;
  try {
    session = await ports.platform.call('cancelAccountSession', { id: viewer.accountId, sessionId: id });
  } catch (error) {
    if (error instanceof InternalCallError && error.status === 404) return { kind: 'not_found' };
    // Decided (or cancelled by someone else) meanwhile: nothing to do, and nothing to audit.
    if (error instanceof InternalCallError && error.status === 409) return { kind: 'ended', sessionId: id };
    throw error;
  }
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: 'session.canceled',
    target: session.id,
    address,
  });
  return { kind: 'canceled', session };
}

/**
 * Who opened a session's personal data or its images (the audit entries naming it), and each use of its
 * evidence links through the API (the flow-runner's log), merged newest first (owners).
 */
export async function accessTrail(
  ports: DashboardPorts,
  viewer: Viewer,
  id: string,
): Promise<Outcome<{ kind: 'trail'; sessionId: SessionId; entries: TrailEntry[] }>> {
  if (!can(viewer.role, 'audit.read')) return { kind: 'forbidden' };
  const session = await findSession(ports, viewer, id);
  if (!session) return { kind: 'not_found' };
  const [audit, downloads] = await Promise.all([
    listAccessTrail(ports.pool, viewer.accountId, session.id),
    evidenceDownloadsOf(ports, viewer, session.id),
  ]);
  return { kind: 'trail', sessionId: session.id, entries: mergeTrail(audit, downloads) };
}

/** A session's access trail as CSV (the audit export's columns); the export is itself audited. */
export async function exportAccessTrail(
  ports: DashboardPorts,
  viewer: Viewer,
  id: string,
  address: string,
): Promise<Outcome<{ kind: 'csv'; sessionId: SessionId; csv: string }>> {
  const found = await accessTrail(ports, viewer, id);
  if (found.kind !== 'trail') return found;
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: 'audit.exported',
    target: found.sessionId,
    address,
  });
  const csv = csvLine(AUDIT_CSV_COLUMNS) + found.entries.map((entry) => csvLine(trailCsvCells(entry, found.sessionId))).join('');
  return { kind: 'csv', sessionId: found.sessionId, csv };
}
