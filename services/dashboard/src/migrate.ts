// `node dist/migrate.js`: migrates the dashboard's schema and exits (the release's migrate Job; DATABASE_URL only).
import { runMigrateCommand } from '@idv/kit';
import { DATABASE_SCHEMA } from './schema';

runMigrateCommand('dashboard', DATABASE_SCHEMA);
