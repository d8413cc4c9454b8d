/** Scales a waiting period of the spec by TIME_SCALE (docs/design.md "Ids, time and knobs"); rate limits are never scaled. */
export function scaled(ms: number, timeScale: number): number {
  return Math.max(1, Math.round(ms * timeScale));
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
