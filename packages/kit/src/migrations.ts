import { readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { z } from 'zod';
import { ConfigError, loadConfig } from './config';
import { OUTBOX_MIGRATIONS_DIR, migrate } from './db';
import { createLogger } from './logger';

/** A service's schema and the migrations that build it: shared by its server (main.ts) and its migrate command. */
export interface ServiceSchema {
  /** The service's own PostgreSQL schema. */
  schema: string;
  /** The service's own migrations folders, in order. */
  migrations: string[];
  /** Adds the kit's outbox table to the schema. */
  outbox?: boolean;
}

/** Every folder whose migrations make up the schema, the kit's outbox first. */
export function migrationDirs(service: ServiceSchema): string[] {
  return service.outbox ? [OUTBOX_MIGRATIONS_DIR, ...service.migrations] : service.migrations;
}

/** The names node-pg-migrate records in `schema_migrations`: each `.sql` file's name without the extension. */
export function knownMigrations(dirs: string[]): string[] {
  return dirs
    .flatMap((dir) => readdirSync(dir).filter((file) => file.endsWith('.sql')))
    .map((file) => path.basename(file, '.sql'))
    .sort();
}

/**
 * The schema in the database is not the one this build was made for: it holds migrations the build does not
 * know (a newer release migrated it) or lacks some the build needs (this release's migrations have not run).
 */
export class SchemaMismatchError extends Error {
  constructor(
    readonly schema: string,
    readonly unknown: string[],
    readonly missing: string[],
  ) {
    const reasons = [
      unknown.length > 0
        ? `holds ${unknown.length} migration(s) this build does not know (${unknown.join(', ')}): a newer release migrated it`
        : null,
      missing.length > 0
        ? `lacks ${missing.length} migration(s) this build needs (${missing.join(', ')}): run this release's migrations first (the migrate Job, \`node dist/migrate.js\`, or MIGRATE_ON_START=true)`
        : null,
    ].filter(Boolean);
    super(`database schema "${schema}" ${reasons.join('; ')}; refusing to start`);
    this.name = 'SchemaMismatchError';
  }
}

/**
 * Compares the migrations recorded in the schema's `schema_migrations` with the build's migration files, and
 * throws a SchemaMismatchError unless they are the same set. A schema never migrated lacks them all.
 */
export async function checkSchema(options: { url: string; schema: string; dirs: string[] }): Promise<void> {
  const known = knownMigrations(options.dirs);
  const client = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: 5000 });
  await client.connect();
  let applied: string[];
  try {
    const table = await client.query<{ table: string | null }>(
      "SELECT to_regclass(format('%I.schema_migrations', $1::text))::text AS table",
      [options.schema],
    );
    applied =
      table.rows[0]?.table === null || table.rows[0]?.table === undefined
        ? []
        : (await client.query<{ name: string }>(`SELECT name FROM ${table.rows[0].table}`)).rows.map((row) => row.name);
  } finally {
    await client.end().catch(() => undefined);
  }
  const knownSet = new Set(known);
  const appliedSet = new Set(applied);
  const unknown = applied.filter((name) => !knownSet.has(name)).sort();
  const missing = known.filter((name) => !appliedSet.has(name));
  if (unknown.length > 0 || missing.length > 0) throw new SchemaMismatchError(options.schema, unknown, missing);
}

const migrateCommandEnvSchema = z.object({
  DATABASE_URL: z.string().url(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/**
 * A service's `dist/migrate.js`: migrates its schema (and checks the result), then exits; 0 on success, 1 on
 * any failure. Reads DATABASE_URL and LOG_LEVEL only, so the release's migrate Job needs no other setting.
 */
export function runMigrateCommand(service: string, schema: ServiceSchema, source: NodeJS.ProcessEnv = process.env): void {
  let config: z.infer<typeof migrateCommandEnvSchema>;
  try {
    config = loadConfig(migrateCommandEnvSchema, source);
  } catch (error) {
    process.stderr.write(`${service} migrate: ${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const logger = createLogger({ service, level: config.LOG_LEVEL });
  const dirs = migrationDirs(schema);
  migrate({ url: config.DATABASE_URL, schema: schema.schema, dirs, logger })
    .then(() => checkSchema({ url: config.DATABASE_URL, schema: schema.schema, dirs }))
    .then(
      () => {
        logger.info({ schema: schema.schema, migrations: knownMigrations(dirs).length }, 'schema up to date');
        process.exit(0);
      },
      (error: unknown) => {
        logger.fatal({ err: error, schema: schema.schema }, 'migration failed');
        process.exit(1);
      },
    );
}
