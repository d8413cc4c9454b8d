import path from 'node:path';
import type { ServiceSchema } from '@idv/kit';

/** The sessions service's PostgreSQL schema and its migrations: migrated by `dist/migrate.js` (or at start), checked at start. */
export const DATABASE_SCHEMA: ServiceSchema = {
  schema: 'sessions',
  migrations: [path.join(__dirname, '..', 'migrations')],
  outbox: true,
};
