import { Stack, type ServiceName } from '../stack';
import { STACK_ENV_NAMES } from '../env';

declare global {
  var __IDV_STACK__: Stack | undefined;
}

/**
 * Starts the whole stack once for a jest run unless one is already described by the environment
 * (GATEWAY_URL and friends, as `scripts/test.sh` or CI export them).
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.GATEWAY_URL) return;
  const only = process.env.IDV_STACK_SERVICES?.split(',').map((s) => s.trim()) as ServiceName[] | undefined;
  const stack = await Stack.start({ database: process.env.IDV_TEST_DATABASE ?? 'idv_test', ...(only ? { services: only } : {}) });
  globalThis.__IDV_STACK__ = stack;
  for (const name of STACK_ENV_NAMES) {
    const value = stack.env[name];
    if (value !== undefined) process.env[name] = value;
  }
}
