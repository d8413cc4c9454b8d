// `node dist/migrate.js`: migrates the keys's schema and exits (the release's migrate Job; DATABASE_URL only).
import { runMigrateCommand } from '@idv/kit';
import { DATABASE_SCHEMA } from './schema';

runMigrateCommand('keys', DATABASE_SCHEMA);
