import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { privateServiceDatabase } from '@idv/testkit';
import pg from 'pg';
import { OUTBOX_MIGRATIONS_DIR, SchemaMismatchError, checkSchema, knownMigrations } from '../src';

/**
 * The schema check every service runs at start, against a throwaway database migrated by the kit's runner
 * (the outbox's migrations and one migration of the test's own): the same set passes; a migration the
 * build does not know (a newer release migrated) and one it lacks (the release's Job has not run) refuse.
 */
const schema = 'schema_check';
const ownDir = mkdtempSync(path.join(tmpdir(), 'kit-schema-check-'));
writeFileSync(path.join(ownDir, '1800000000000_widgets.sql'), 'CREATE TABLE widgets (id bigint PRIMARY KEY);\n');
const dirs = [OUTBOX_MIGRATIONS_DIR, ownDir];
let database: { url: string; drop: () => Promise<void> };
let client: pg.Client;

beforeAll(async () => {
  database = await privateServiceDatabase({ label: 'schema_check', schema, migrationsDir: ownDir });
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await database?.drop();
});

const rejection = (promise: Promise<void>) =>
  promise.then(
    () => {
      throw new Error('expected the schema check to refuse');
    },
    (error: unknown) => error as SchemaMismatchError,
  );

it('when the schema holds exactly the migrations of the build, then the check passes', async () => {
  expect(knownMigrations(dirs)).toContain('1800000000000_widgets');
  await expect(checkSchema({ url: database.url, schema, dirs })).resolves.toBeUndefined();
});

it('when the schema holds a migration the build does not know, then the check refuses it as a newer schema', async () => {
  await client.query(`INSERT INTO ${schema}.schema_migrations (name, run_on) VALUES ('1900000000000_from_the_future', now())`);
  try {
    const error = await rejection(checkSchema({ url: database.url, schema, dirs }));
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error.unknown).toEqual(['1900000000000_from_the_future']);
    expect(error.missing).toEqual([]);
    expect(error.message).toMatch(/does not know .*newer release.*refusing to start/);
  } finally {
    await client.query(`DELETE FROM ${schema}.schema_migrations WHERE name = '1900000000000_from_the_future'`);
  }
});

it('when the schema lacks a migration the build needs, then the check refuses it and says to run the migrations', async () => {
  await client.query(`DELETE FROM ${schema}.schema_migrations WHERE name = '1800000000000_widgets'`);
  try {
    const error = await rejection(checkSchema({ url: database.url, schema, dirs }));
    expect(error.missing).toEqual(['1800000000000_widgets']);
    expect(error.unknown).toEqual([]);
    expect(error.message).toMatch(/lacks .*run this release's migrations first.*refusing to start/);
  } finally {
    await client.query(`INSERT INTO ${schema}.schema_migrations (name, run_on) VALUES ('1800000000000_widgets', now())`);
  }
});

it('when the schema was never migrated, then every migration is missing', async () => {
  const error = await rejection(checkSchema({ url: database.url, schema: 'schema_check_never', dirs }));
  expect(error.missing).toEqual(knownMigrations(dirs));
});
