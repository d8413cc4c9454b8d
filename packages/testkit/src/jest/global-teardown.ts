/** Stops what the global setup started; every component and e2e project calls it, only the first stops. */
export default async function globalTeardown(): Promise<void> {
  const stack = globalThis.__IDV_STACK__;
  const lock = globalThis.__IDV_SUITE_LOCK__;
  globalThis.__IDV_STACK__ = undefined;
  globalThis.__IDV_SUITE_LOCK__ = undefined;
  await stack?.stop();
  await lock?.end();
}
