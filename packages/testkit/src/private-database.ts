import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT_DIR, dropDatabase, ensureDatabase, infraFromEnv } from './stack';

/**
 * A PostgreSQL database of the test's own with one service's schema migrated by the kit's migration
 * runner (the outbox's migrations, then the service's `migrationsDir`), for tests that move the clock,
 * claim due rows or must not meet another test's rows (or the running stack's workers). The runner runs
 * in a child process: node-pg-migrate is ESM, which jest cannot load.
 */
export async function privateServiceDatabase(options: {
  label: string;
  schema: string;
  migrationsDir: string;
}): Promise<{ url: string; drop: () => Promise<void> }> {
  const database = `idv_test_${options.label}_${randomBytes(4).toString('hex')}`;
  const url = await ensureDatabase(infraFromEnv().postgresAdminUrl, database);
  const kit = path.join(ROOT_DIR, 'packages', 'kit', 'dist', 'index.js');
  const script = `const kit = require(${JSON.stringify(kit)});
    kit.migrate({ url: process.env.URL, schema: process.env.SCHEMA, dirs: [kit.OUTBOX_MIGRATIONS_DIR, process.env.DIR],
      logger: kit.createLogger({ service: 'migrate', level: 'warn' }) }).then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });`;
  await promisify(execFile)(process.execPath, ['-e', script], {
    env: { ...process.env, URL: url, SCHEMA: options.schema, DIR: options.migrationsDir },
  });
  return { url, drop: () => dropDatabase(infraFromEnv().postgresAdminUrl, database) };
}
