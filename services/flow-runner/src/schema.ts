import path from 'node:path';
import type { ServiceSchema } from '@idv/kit';

/** The flow-runner service's PostgreSQL schema and its migrations: migrated by `dist/migrate.js` (or at start), checked at start. */
export const DATABASE_SCHEMA: ServiceSchema = {
  schema: 'flow',
  migrations: [path.join(__dirname, '..', 'migrations')],
  outbox: true,
};
