import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPool } from '@idv/kit';
import { ROOT_DIR, dropDatabase, ensureDatabase, infraFromEnv, testEnv } from '@idv/testkit';
import type pg from 'pg';
import { PgFlowStore } from '../src/adapters/flow.repository';

/**
 * A PostgreSQL database of the test's own with the flow schema migrated by the service's migration
 * runner, for tests that move the clock (retention) or must not meet another test's rows. The runner
 * runs in a child process: node-pg-migrate is ESM, which jest cannot load.
 */
export async function privateFlowDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const database = `idv_test_${label}_${randomBytes(4).toString('hex')}`;
  const url = await ensureDatabase(infraFromEnv().postgresAdminUrl, database);
  const kit = path.join(ROOT_DIR, 'packages', 'kit', 'dist', 'index.js');
  const script = `const kit = require(${JSON.stringify(kit)});
    kit.migrate({ url: process.env.URL, schema: 'flow', dirs: [kit.OUTBOX_MIGRATIONS_DIR, process.env.DIR],
      logger: kit.createLogger({ service: 'migrate', level: 'warn' }) }).then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });`;
  await promisify(execFile)(process.execPath, ['-e', script], {
    env: { ...process.env, URL: url, DIR: path.join(__dirname, '..', 'migrations') },
  });
  return { url, drop: () => dropDatabase(infraFromEnv().postgresAdminUrl, database) };
}

/**
 * The flow store against the stack's real PostgreSQL (schema `flow`, migrated by the running service),
 * opened before the file's tests and closed after them.
 */
export function stackFlowStore(): { pool: pg.Pool; store: PgFlowStore } {
  const opened = {} as { pool: pg.Pool; store: PgFlowStore };
  beforeAll(() => {
    opened.pool = createPool({ url: testEnv().databaseUrl, schema: 'flow', max: 4 });
    opened.store = new PgFlowStore(opened.pool);
  });
  afterAll(() => opened.pool.end());
  return opened;
}
