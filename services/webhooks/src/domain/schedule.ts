import { MINUTE, SECOND, scaled } from '@idv/kit';

/** Spec "Delivery rules" 3: the wait after attempts 1–7; the 8th failure is the last. */
export const RETRY_WAITS_MS = [10, 20, 40, 80, 160, 320, 640].map((s) => s * SECOND);
export const MAX_ATTEMPTS = 8;
export const RECEIVER_TIMEOUT_MS = 10 * SECOND;
export const CIRCUIT_FAILURE_THRESHOLD = 5;
export const CIRCUIT_OPEN_MS = 15 * MINUTE;
/** How long the previous secret keeps signing after a rotation (docs/design.md; not a spec wait, not scaled). */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * MINUTE;

export interface Timings {
  receiverTimeoutMs: number;
  circuitOpenMs: number;
  /** Lease of a claimed message: longer than any attempt can take, so only a crashed replica's claims expire. */
  leaseMs: number;
  waitAfter(attempt: number): number;
}

export function timings(timeScale: number): Timings {
  const receiverTimeoutMs = scaled(RECEIVER_TIMEOUT_MS, timeScale);
  return {
    receiverTimeoutMs,
    circuitOpenMs: scaled(CIRCUIT_OPEN_MS, timeScale),
    leaseMs: receiverTimeoutMs + 5 * SECOND,
    waitAfter: (attempt) => scaled(RETRY_WAITS_MS[Math.min(Math.max(attempt, 1), RETRY_WAITS_MS.length) - 1]!, timeScale),
  };
}

export type AttemptDecision =
  { kind: 'done' } | { kind: 'retry'; waitMs: number } | { kind: 'dead' } | { kind: 'single_shot_failed' };

/** What happens to a message after a real attempt (`attemptsUsed` includes this one). */
export function afterAttempt(
  input: { succeeded: boolean; attemptsUsed: number; automatic: boolean },
  t: Pick<Timings, 'waitAfter'>,
): AttemptDecision {
  if (input.succeeded) return { kind: 'done' };
  if (!input.automatic) return { kind: 'single_shot_failed' };
  if (input.attemptsUsed >= MAX_ATTEMPTS) return { kind: 'dead' };
  return { kind: 'retry', waitMs: t.waitAfter(input.attemptsUsed) };
}

/**
 * An attempt due while the circuit is open is re-queued with the same backoff it was waiting on
 * (the first send waits as long as after attempt 1) and does not use up an attempt.
 */
export function circuitRequeueWait(lastWaitMs: number | null, t: Pick<Timings, 'waitAfter'>): number {
  return lastWaitMs ?? t.waitAfter(1);
}
