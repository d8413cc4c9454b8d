import path from 'node:path';
import { createPool } from '@idv/kit';
import { privateServiceDatabase, testEnv } from '@idv/testkit';
import type pg from 'pg';
import { PgFlowStore } from '../src/adapters/flow.repository';

/** A PostgreSQL database of the test's own with the flow schema migrated (testkit `privateServiceDatabase`). */
export function privateFlowDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  return privateServiceDatabase({ label, schema: 'flow', migrationsDir: path.join(__dirname, '..', 'migrations') });
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
