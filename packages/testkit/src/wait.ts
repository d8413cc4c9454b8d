/**
 * Polls `probe` until it returns a value other than undefined, null or false, or fails after
 * `timeoutMs` naming `what` and the last error the probe threw.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  intervalMs = 25,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`${what} not met within ${timeoutMs} ms${lastError instanceof Error ? `: ${lastError.message}` : ''}`);
}
