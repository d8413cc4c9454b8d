export default async function globalTeardown(): Promise<void> {
  await globalThis.__IDV_STACK__?.stop();
}
