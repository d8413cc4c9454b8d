import pg from 'pg';
import { STACK_ENV_NAMES } from '../env';
import { Stack, infraFromEnv, type ServiceName } from '../stack';

declare global {
  var __IDV_STACK__: Stack | undefined;
  var __IDV_SUITE_LOCK__: pg.Client | undefined;
}

/**
 * One jest run with its own stack at a time on a machine: `turbo run test` starts every package's jest
 * at once, and several full stacks with their timing-sensitive tests on two cores would make each
 * other fail. The lock is a PostgreSQL session advisory lock, released when the run ends (or dies).
 */
const SUITE_LOCK = 'select pg_advisory_lock(hashtext($1))';

/**
 * Starts the whole stack once for a jest run unless one is already described by the environment
 * (GATEWAY_URL and friends set by the caller). Every component and e2e project names this setup: the first
 * starts the stack and sets the environment, the others find it set.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.GATEWAY_URL || globalThis.__IDV_STACK__) return;
  const lock = new pg.Client({ connectionString: infraFromEnv().postgresAdminUrl });
  await lock.connect();
  await lock.query(SUITE_LOCK, ['idv-test-suite']);
  globalThis.__IDV_SUITE_LOCK__ = lock;

  const only = process.env.IDV_STACK_SERVICES?.split(',').map((s) => s.trim()) as ServiceName[] | undefined;
  const stack = await Stack.start({ database: process.env.IDV_TEST_DATABASE ?? 'idv_test', ...(only ? { services: only } : {}) });
  globalThis.__IDV_STACK__ = stack;
  for (const name of STACK_ENV_NAMES) {
    const value = stack.env[name];
    if (value !== undefined) process.env[name] = value;
  }
}
