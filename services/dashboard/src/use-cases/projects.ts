import {
  InternalCallError,
  isId,
  type ConfigVersionEntry,
  type FlowConfig,
  type InternalAnswer,
  type Mode,
  type ProjectId,
  type ProjectOverview,
  type SessionId,
} from '@idv/contracts';
import type { Queryable } from '@idv/kit';
import { appendAudit } from '../adapters/audit.repository';
import { claimFormNonce } from '../adapters/form-submissions.repository';
import { diffLines, readableJson, type DiffLine } from '../domain/diff';
import { problemsOf } from '../domain/flow-problems';
import { can } from '../domain/roles';
import type { DashboardPorts } from './ports';
import type { Viewer } from './sign-in';

export type Outcome<T> = T | { kind: 'forbidden' } | { kind: 'not_found' };

/** What a new project's draft starts from: a form and an e-mail code (consent is always first, implicitly). */
export const STARTER_CONFIG = {
  steps: [
    {
      id: 'datos',
      type: 'form',
      fields: [{ name: 'nombre', type: 'text', label: 'Nombre y apellido', required: true }],
    },
    { id: 'correo', type: 'otp_email' },
  ],
  options: {
    documentData: false,
    verifiedChannels: true,
    formData: true,
    evidenceLinks: false,
    webhookEvents: ['verification_session.approved', 'verification_session.rejected', 'verification_session.completed'],
  },
};

export async function listProjects(
  ports: DashboardPorts,
  viewer: Viewer,
): Promise<Outcome<{ kind: 'projects'; projects: ProjectOverview[] }>> {
  if (!can(viewer.role, 'projects.read')) return { kind: 'forbidden' };
  const listed = await ports.platform.call('listProjects', { id: viewer.accountId });
  return { kind: 'projects', projects: listed.data };
}

/** One project of the viewer's account; another account's is not found, as an unknown one. */
export async function projectOf(
  ports: DashboardPorts,
  viewer: Viewer,
  projectId: string,
): Promise<Outcome<{ kind: 'project'; project: ProjectOverview }>> {
  const listed = await listProjects(ports, viewer);
  if (listed.kind !== 'projects') return listed;
  const project = listed.projects.find((candidate) => candidate.id === projectId);
  return project ? { kind: 'project', project } : { kind: 'not_found' };
}

export async function createProject(
  ports: DashboardPorts,
  viewer: Viewer,
  input: { name: string; nonce: string },
  address: string,
): Promise<Outcome<{ kind: 'created'; projectId: ProjectId } | { kind: 'duplicate' }>> {
  if (!can(viewer.role, 'projects.write')) return { kind: 'forbidden' };
  if (!(await claimFormNonce(ports.pool, input.nonce, viewer.userId))) {
    return { kind: 'duplicate' };
  }
  const project = await ports.platform.call('createProject', {}, { account_id: viewer.accountId, name: input.name });
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: 'project.created',
    target: project.id,
    address,
  });
  return { kind: 'created', projectId: project.id };
}

export async function renameProject(ports: DashboardPorts, viewer: Viewer, projectId: string, name: string, address: string) {
  if (!can(viewer.role, 'projects.write')) return { kind: 'forbidden' as const };
  const found = await projectOf(ports, viewer, projectId);
  if (found.kind !== 'project') return found;
  await ports.platform.call('renameProject', { id: found.project.id }, { name });
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: 'project.renamed',
    target: found.project.id,
    address,
  });
  return { kind: 'renamed' as const };
}

async function versionsOf(ports: DashboardPorts, projectId: ProjectId): Promise<ConfigVersionEntry[]> {
  return (await ports.platform.call('listConfigVersions', { id: projectId })).data;
}

/** The draft as last saved; before any, the version test points to, else the starter. */
export async function draftOf(ports: DashboardPorts, project: ProjectOverview): Promise<string> {
  const { rows } = await ports.pool.query<{ config_text: string }>('SELECT config_text FROM drafts WHERE project_id = $1', [
    project.id,
  ]);
  if (rows[0]) return rows[0].config_text;
  const current = project.test_version ?? project.live_version;
  const version = current ? (await versionsOf(ports, project.id)).find((entry) => entry.id === current) : undefined;
  return readableJson(version?.config ?? STARTER_CONFIG);
}

export interface ConfigProblem {
  path: string;
  message: string;
}

/** The draft checked by the same schema as publication: the configuration, or each problem with its place. */
export function checkDraft(text: string): { config: unknown; problems: ConfigProblem[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { config: null, problems: [{ path: '(json)', message: (error as Error).message }] };
  }
  const problems = [...problemsOf(parsed)].slice(0, 50).map(([path, message]) => ({ path, message }));
  return { config: problems.length ? null : parsed, problems };
}

export async function saveDraft(
  ports: DashboardPorts,
  viewer: Viewer,
  projectId: string,
  text: string,
  db: Queryable = ports.pool,
) {
  if (!can(viewer.role, 'projects.write')) return { kind: 'forbidden' as const };
  const found = await projectOf(ports, viewer, projectId);
  if (found.kind !== 'project') return found;
  await db.query(
    `INSERT INTO drafts (project_id, account_id, config_text, updated_by) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id) DO UPDATE SET config_text = EXCLUDED.config_text, updated_by = EXCLUDED.updated_by, updated_at = now()`,
    [found.project.id, viewer.accountId, text, viewer.userId],
  );
  return { kind: 'saved' as const, project: found.project, ...checkDraft(text) };
}

export interface PublishPlan {
  project: ProjectOverview;
  mode: Mode;
  config: unknown;
  /** Against what `mode` points to now (empty before the first publication). */
  diff: DiffLine[];
  currentVersion: string | null;
}

export type PublishResult = Outcome<
  | { kind: 'preview'; plan: PublishPlan }
  | { kind: 'published'; version: string }
  | { kind: 'invalid'; problems: ConfigProblem[] }
  | { kind: 'live_needs_active_account' }
  | { kind: 'stale' }
>;

/**
 * Publishes a configuration (the draft, or an earlier version being restored) to one mode: first the
 * preview, with a diff against what that mode points to now; then, confirmed against that same current
 * version (a publication in between makes the confirmation stale: it is shown again), the publication
 * freezes a new version. Live needs an active account.
 */
export async function publish(
  ports: DashboardPorts,
  viewer: Viewer,
  projectId: string,
  request: { mode: Mode; source: { draft: true } | { version: string }; confirmAgainst?: string | null },
  address: string,
): Promise<PublishResult> {
  if (!can(viewer.role, 'projects.write')) return { kind: 'forbidden' };
  const found = await projectOf(ports, viewer, projectId);
  if (found.kind !== 'project') return found;
  const { project } = found;
  if (request.mode === 'live') {
    const account = await ports.platform.call('getAccount', { id: viewer.accountId });
    if (account.status !== 'active') return { kind: 'live_needs_active_account' };
  }
  const versions = await versionsOf(ports, project.id);
  let config: unknown;
  if ('draft' in request.source) {
    const checked = checkDraft(await draftOf(ports, project));
    if (checked.problems.length) return { kind: 'invalid', problems: checked.problems };
    config = checked.config;
  } else {
    const wanted = request.source.version;
    const entry = versions.find((candidate) => candidate.id === wanted);
    if (!entry) return { kind: 'not_found' };
    config = entry.config;
  }
  const currentVersion = request.mode === 'test' ? project.test_version : project.live_version;
  const current = versions.find((entry) => entry.id === currentVersion)?.config;
  const plan: PublishPlan = {
    project,
    mode: request.mode,
    config,
    diff: diffLines(current ? readableJson(current) : '', readableJson(config)),
    currentVersion,
  };
  if (request.confirmAgainst === undefined) return { kind: 'preview', plan };
  if (request.confirmAgainst !== currentVersion) return { kind: 'stale' };
  const published = await ports.platform.call('publishConfig', { id: project.id }, { mode: request.mode, config });
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: `config.published_${request.mode}`,
    target: `${project.id}/${published.id}`,
    address,
  });
  return { kind: 'published', version: published.id };
}

/** A try as the dashboard reads it (its configuration left as the sessions service sent it). */
export type TrySession = InternalAnswer<'getInternalSession'>;

export type TryResult = Outcome<
  { kind: 'tried'; sessionId: SessionId } | { kind: 'too_many' } | { kind: 'suspended' } | { kind: 'duplicate' }
>;

/**
 * "Try it": a test session on `config`, the draft just saved and found valid, without publishing it (the
 * sessions service freezes it as a try: no debit, no webhook, never in the public API). A pending account
 * may try, as it may publish to test; a suspended one may not.
 */
export async function tryDraft(
  ports: DashboardPorts,
  viewer: Viewer,
  project: ProjectOverview,
  config: unknown,
  nonce: string,
  address: string,
): Promise<TryResult> {
  if (!can(viewer.role, 'projects.write')) return { kind: 'forbidden' };
  const account = await ports.platform.call('getAccount', { id: viewer.accountId });
  if (account.status === 'suspended') return { kind: 'suspended' };
  if (!(await claimFormNonce(ports.pool, nonce, viewer.userId))) {
    return { kind: 'duplicate' };
  }
  let session: TrySession;
  try {
    session = await ports.platform.call(
      'createTrySession',
      { id: project.id },
      { account_id: viewer.accountId, config: config as FlowConfig },
    );
  } catch (error) {
    if (error instanceof InternalCallError && error.status === 429) return { kind: 'too_many' };
    throw error;
  }
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: 'config.tried',
    target: `${project.id}/${session.id}`,
    address,
  });
  return { kind: 'tried', sessionId: session.id };
}

/** A try of one of the viewer's projects, as it stands; any other session is not found. */
export async function tryOf(
  ports: DashboardPorts,
  viewer: Viewer,
  projectId: string,
  sessionId: string,
): Promise<Outcome<{ kind: 'try'; project: ProjectOverview; session: TrySession }>> {
  const found = await projectOf(ports, viewer, projectId);
  if (found.kind !== 'project') return found;
  if (!isId('session', sessionId)) return { kind: 'not_found' };
  let session: TrySession;
  try {
    session = await ports.platform.call('getInternalSession', { id: sessionId });
  } catch (error) {
    if (error instanceof InternalCallError && error.status === 404) return { kind: 'not_found' };
    throw error;
  }
  const ours = session.try === true && session.account_id === viewer.accountId && session.project_id === found.project.id;
  return ours ? { kind: 'try', project: found.project, session } : { kind: 'not_found' };
}

export interface HistoryEntry extends ConfigVersionEntry {
  publishedBy: string | null;
  pointedBy: Mode[];
}

/** The versions, newest first, with who published each (the audit log) and which mode points to it. */
export async function historyOf(
  ports: DashboardPorts,
  viewer: Viewer,
  projectId: string,
): Promise<Outcome<{ kind: 'history'; project: ProjectOverview; entries: HistoryEntry[] }>> {
  const found = await projectOf(ports, viewer, projectId);
  if (found.kind !== 'project') return found;
  const versions = await versionsOf(ports, found.project.id);
  const { rows } = await ports.pool.query<{ target: string; name: string | null; email: string | null }>(
    `SELECT a.target, u.name, u.email FROM audit_log a LEFT JOIN users u ON u.id = a.actor_id
      WHERE a.account_id = $1 AND a.action LIKE 'config.published_%' AND a.target LIKE $2`,
    [viewer.accountId, `${found.project.id}/%`],
  );
  const by = new Map(rows.map((row) => [row.target.split('/')[1]!, row.name ? `${row.name} <${row.email}>` : null]));
  const entries = versions.map((entry) => ({
    ...entry,
    publishedBy: by.get(entry.id) ?? null,
    pointedBy: (['test', 'live'] as const).filter(
      (mode) => (mode === 'test' ? found.project.test_version : found.project.live_version) === entry.id,
    ),
  }));
  return { kind: 'history', project: found.project, entries };
}

/** Two versions of a project compared (older first). */
export async function compareVersions(ports: DashboardPorts, viewer: Viewer, projectId: string, from: string, to: string) {
  const found = await projectOf(ports, viewer, projectId);
  if (found.kind !== 'project') return found;
  const versions = await versionsOf(ports, found.project.id);
  const a = versions.find((entry) => entry.id === from);
  const b = versions.find((entry) => entry.id === to);
  if (!a || !b) return { kind: 'not_found' as const };
  return {
    kind: 'diff' as const,
    project: found.project,
    from: a.id,
    to: b.id,
    diff: diffLines(readableJson(a.config), readableJson(b.config)),
  };
}
