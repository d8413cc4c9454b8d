import path from 'node:path';
import { createPool } from '@idv/kit';
import { privateServiceDatabase, testEnv } from '@idv/testkit';
import type pg from 'pg';
import sharp from 'sharp';
import { PgArtefactStore } from '../src/adapters/artefact.store';
import { PgFlowStore } from '../src/adapters/flow.repository';
import { artefactKeyring } from '../src/config';

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

/**
 * The flow store and the artefact store over a database of the file's own (`privateFlowDatabase`),
 * opened before its tests and dropped after them, with a small real JPEG to store as a capture.
 */
export function privateFlowStores(label: string): {
  url: string;
  pool: pg.Pool;
  artefacts: PgArtefactStore;
  flows: PgFlowStore;
  image: Buffer;
} {
  const opened = {} as ReturnType<typeof privateFlowStores>;
  let database: Awaited<ReturnType<typeof privateFlowDatabase>> | undefined;
  beforeAll(async () => {
    database = await privateFlowDatabase(label);
    opened.url = database.url;
    opened.pool = createPool({ url: database.url, schema: 'flow', max: 6 });
    opened.artefacts = new PgArtefactStore(opened.pool, artefactKeyring({ INTERNAL_TOKEN: `${label}-test-internal-token` }));
    opened.flows = new PgFlowStore(opened.pool, opened.artefacts);
    opened.image = await sharp({ create: { width: 64, height: 40, channels: 3, background: '#8899aa' } })
      .jpeg()
      .toBuffer();
  }, 60_000);
  afterAll(async () => {
    await opened.pool?.end();
    await database?.drop();
  });
  return opened;
}
