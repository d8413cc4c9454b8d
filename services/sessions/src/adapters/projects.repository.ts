import {
  configVersionId,
  type AccountId,
  type ConfigVersionEntry,
  type FlowConfig,
  type Mode,
  type Project,
  type ProjectId,
  type ProjectOverview,
} from '@idv/contracts';
import type { Queryable } from '@idv/kit';

interface ProjectRow {
  id: ProjectId;
  account_id: AccountId;
  name: string;
  created_at: Date;
}

function toProject(row: ProjectRow): Project {
  return { id: row.id, object: 'project', account_id: row.account_id, name: row.name, created_at: row.created_at.toISOString() };
}

export async function insertProject(
  db: Queryable,
  project: { id: ProjectId; accountId: AccountId; name: string },
): Promise<Project> {
  const { rows } = await db.query<ProjectRow>(
    'INSERT INTO projects (id, account_id, name) VALUES ($1, $2, $3) RETURNING id, account_id, name, created_at',
    [project.id, project.accountId, project.name],
  );
  return toProject(rows[0]!);
}

/**
 * Freezes a new version and moves the pointer of `mode` only. The UPDATE takes the project's row
 * lock, so concurrent publications of one project get consecutive numbers, never the same one.
 * Returns null when the project does not exist. Run inside a transaction.
 */
export async function publishConfig(db: Queryable, projectId: ProjectId, mode: Mode, config: FlowConfig): Promise<number | null> {
  const { rows } = await db.query<{ version: number }>(
    `UPDATE projects
        SET last_version = last_version + 1,
            test_version = CASE WHEN $2 = 'test' THEN last_version + 1 ELSE test_version END,
            live_version = CASE WHEN $2 = 'live' THEN last_version + 1 ELSE live_version END
      WHERE id = $1
      RETURNING last_version AS version`,
    [projectId, mode],
  );
  const version = rows[0]?.version;
  if (version === undefined) return null;
  await db.query('INSERT INTO config_versions (project_id, version, mode, config) VALUES ($1, $2, $3, $4)', [
    projectId,
    version,
    mode,
    JSON.stringify(config),
  ]);
  return version;
}

/**
 * Freezes a draft for a try: numbered below zero from the project's own try counter (row lock as for a
 * publication), no pointer moved. Null when the project is not this account's. Run inside a transaction.
 */
export async function freezeDraft(
  db: Queryable,
  accountId: AccountId,
  projectId: ProjectId,
  config: FlowConfig,
): Promise<number | null> {
  const { rows } = await db.query<{ version: number }>(
    `UPDATE projects SET last_try_version = last_try_version + 1
      WHERE id = $1 AND account_id = $2 RETURNING -last_try_version AS version`,
    [projectId, accountId],
  );
  const version = rows[0]?.version;
  if (version === undefined) return null;
  await db.query(`INSERT INTO config_versions (project_id, version, mode, config) VALUES ($1, $2, 'test', $3)`, [
    projectId,
    version,
    JSON.stringify(config),
  ]);
  return version;
}

/** The project of this account and the version current in `mode` (null when none is published). */
export async function findActiveVersion(
  db: Queryable,
  accountId: AccountId,
  projectId: ProjectId,
  mode: Mode,
): Promise<{ version: number | null } | null> {
  const { rows } = await db.query<{ version: number | null }>(
    `SELECT CASE WHEN $3 = 'test' THEN test_version ELSE live_version END AS version
       FROM projects WHERE account_id = $1 AND id = $2`,
    [accountId, projectId, mode],
  );
  return rows[0] ?? null;
}

export async function findConfig(db: Queryable, projectId: ProjectId, version: number): Promise<FlowConfig | null> {
  const { rows } = await db.query<{ config: FlowConfig }>(
    'SELECT config FROM config_versions WHERE project_id = $1 AND version = $2',
    [projectId, version],
  );
  return rows[0]?.config ?? null;
}

interface OverviewRow extends ProjectRow {
  test_version: number | null;
  live_version: number | null;
  last_version: number;
}

const versionIdOf = (version: number | null) => (version ? configVersionId(version) : null);

function toOverview(row: OverviewRow): ProjectOverview {
  return {
    ...toProject(row),
    test_version: versionIdOf(row.test_version),
    live_version: versionIdOf(row.live_version),
    last_version: versionIdOf(row.last_version),
  };
}

/** An account's projects, oldest first, with where each mode points. */
export async function listProjects(db: Queryable, accountId: AccountId): Promise<ProjectOverview[]> {
  const { rows } = await db.query<OverviewRow>(
    'SELECT id, account_id, name, created_at, test_version, live_version, last_version FROM projects WHERE account_id = $1 ORDER BY created_at, id',
    [accountId],
  );
  return rows.map(toOverview);
}

/** How many of an account's projects have a live configuration published. */
export async function countLiveProjects(db: Queryable, accountId: AccountId): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM projects WHERE account_id = $1 AND live_version IS NOT NULL',
    [accountId],
  );
  return rows[0]!.n;
}

export async function renameProject(db: Queryable, projectId: ProjectId, name: string): Promise<ProjectOverview | null> {
  const { rows } = await db.query<OverviewRow>(
    'UPDATE projects SET name = $2 WHERE id = $1 RETURNING id, account_id, name, created_at, test_version, live_version, last_version',
    [projectId, name],
  );
  return rows[0] ? toOverview(rows[0]) : null;
}

/** A project's versions, newest first (at most `limit`); null when the project does not exist. */
export async function listConfigVersions(
  db: Queryable,
  projectId: ProjectId,
  limit: number,
): Promise<ConfigVersionEntry[] | null> {
  const exists = await db.query('SELECT 1 FROM projects WHERE id = $1', [projectId]);
  if (!exists.rowCount) return null;
  const { rows } = await db.query<{ version: number; mode: Mode; created_at: Date; config: Record<string, unknown> }>(
    'SELECT version, mode, created_at, config FROM config_versions WHERE project_id = $1 AND version > 0 ORDER BY version DESC LIMIT $2',
    [projectId, limit],
  );
  return rows.map((row) => ({
    id: configVersionId(row.version),
    project_id: projectId,
    mode: row.mode,
    created_at: row.created_at.toISOString(),
    config: row.config,
  }));
}
