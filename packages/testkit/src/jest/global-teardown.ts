export default async function globalTeardown(): Promise<void> {
  await globalThis.__IDV_STACK__?.stop();
  await globalThis.__IDV_SUITE_LOCK__?.end();
}
