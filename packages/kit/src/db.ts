import path from 'node:path';
import pg from 'pg';
import type { Logger } from './logger';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

// Timestamps come back as ISO strings with milliseconds; bigint counts as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface PoolOptions {
  url: string;
  /** The service's own schema: every unqualified table name resolves inside it. */
  schema: string;
  max?: number;
  applicationName?: string;
  /** Session settings for every connection, e.g. `{ synchronous_commit: 'off' }`. */
  settings?: Record<string, string>;
  /** This pool's type parsers (e.g. `isoTimestampTypes`); pg's global ones by default. */
  types?: pg.CustomTypesConfig;
}

export function createPool({ url, schema, max = 10, applicationName, settings = {}, types }: PoolOptions): pg.Pool {
  const extra = Object.entries(settings)
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join('');
  const pool = new pg.Pool({
    connectionString: url,
    max,
    options: `-c search_path=${schema},public${extra}`,
    application_name: applicationName ?? schema,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    ...(types ? { types } : {}),
  });
  // An idle client erroring (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // A checked-out client (a transaction in flight) has no pool listener: when its connection ends (a server
  // restart), its 'error' event would crash the process. Its query fails anyway, and the pool discards the
  // broken client on release (the chaos suite, packages/testkit/test/chaos.e2e.test.ts, restarts PostgreSQL).
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export async function checkDatabase(pool: pg.Pool): Promise<void> {
  await pool.query('SELECT 1');
}

/** The outbox table's migration, shipped by the kit and run in each publishing service's schema. */
export const OUTBOX_MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export interface MigrateOptions {
  url: string;
  schema: string;
  dirs: string[];
  logger: Logger;
}

/**
 * Runs versioned SQL migrations with node-pg-migrate into the service's own schema. The library's
 * advisory lock makes concurrent replicas wait instead of racing.
 */
export async function migrate(options: MigrateOptions): Promise<void> {
  // node-pg-migrate's lock is taken with pg_try_advisory_lock: a second service or replica migrating
  // the same database at the same moment fails at once. Wait for our turn instead of crashing.
  const deadline = Date.now() + 120_000;
  for (let attempt = 1; ; attempt++) {
    try {
      await migrateOnce(options);
      return;
    } catch (error) {
      const busy = error instanceof Error && /another migration is already running/i.test(error.message);
      if (!busy || Date.now() > deadline) throw error;
      options.logger.info({ schema: options.schema, attempt }, 'another migration is running; waiting');
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * attempt, 1000)));
    }
  }
}

async function migrateOnce({ url, schema, dirs, logger }: MigrateOptions): Promise<void> {
  const { runner } = await import('node-pg-migrate');
  const applied = await runner({
    databaseUrl: url,
    dir: dirs.map((dir) => path.join(dir, '*.sql')),
    useGlob: true,
    direction: 'up',
    schema,
    createSchema: true,
    migrationsSchema: schema,
    createMigrationsSchema: true,
    migrationsTable: 'schema_migrations',
    checkOrder: false,
    log: (message: string) => logger.debug({ schema }, message),
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: (m: string) => logger.warn(m),
      error: (m: string) => logger.error(m),
    },
  });
  if (applied.length > 0) logger.info({ schema, migrations: applied.map((m) => m.name) }, 'migrations applied');
}
