import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT_DIR, dropDatabase, ensureDatabase, infraFromEnv } from '@idv/testkit';
import pg from 'pg';

/**
 * The built service against a throwaway database, as a release runs it in Kubernetes (MIGRATE_ON_START=false:
 * the migrate Job migrates, the pods only check): it refuses to start before its migrations have run and on a
 * schema a newer release migrated, with a log line saying why and exit code 1; `dist/migrate.js` migrates.
 */
const SERVICE_DIR = path.join(ROOT_DIR, 'services', 'keys');
const database = `idv_test_schema_guard_${randomBytes(4).toString('hex')}`;
let url: string;

beforeAll(async () => {
  url = await ensureDatabase(infraFromEnv().postgresAdminUrl, database);
});
afterAll(async () => {
  await dropDatabase(infraFromEnv().postgresAdminUrl, database);
});

async function run(script: string): Promise<{ code: number; output: string }> {
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: url,
    MIGRATE_ON_START: 'false',
    INTERNAL_TOKEN: 'schema-guard-test-token',
    // Never reached: the service stops at the schema check, before connecting to the broker.
    AMQP_URL: 'amqp://127.0.0.1:1',
    HOST: '127.0.0.1',
    PORT: '0',
  };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(SERVICE_DIR, 'dist', script)], {
      env,
      timeout: 30_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

it('when the release’s migrations have not run, then the service refuses to start and says to run them', async () => {
  const { code, output } = await run('main.js');
  expect(code).toBe(1);
  expect(output).toMatch(/database schema \\?"keys\\?" lacks \d+ migration\(s\) this build needs/);
  expect(output).toContain('refusing to start');
  expect(output).not.toContain('"msg":"listening"');
});

it('when the migrate command runs, then the schema is the build’s and a newer migration makes the service refuse', async () => {
  const migrated = await run('migrate.js');
  expect(migrated.code).toBe(0);
  expect(migrated.output).toContain('schema up to date');

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("INSERT INTO keys.schema_migrations (name, run_on) VALUES ('9999999999999_from_a_newer_release', now())");
  } finally {
    await client.end();
  }
  const { code, output } = await run('main.js');
  expect(code).toBe(1);
  expect(output).toContain('this build does not know (9999999999999_from_a_newer_release)');
  expect(output).toContain('refusing to start');
});
