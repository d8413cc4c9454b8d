/**
 * The optional cross-check of a document against the national registry (`registryCheck` of a
 * `document_ar` step): what is asked, what can come back, and when a registry that does not answer
 * is asked again. No HTTP here: the client is an adapter behind `RegistryPort`.
 */

import type { RegistryCheckId } from '@idv/contracts';

/** What the registry is asked: the document as read, once the document's own checks passed. Personal data. */
export interface RegistryQuery {
  document_type: 'dni' | 'passport' | 'licence';
  number: string;
  sex: 'M' | 'F' | 'X' | null;
  surname: string;
  given_names: string;
  birth_date: string;
  /** The DNI's trámite number, when the barcode carries one (it identifies the card issued). */
  tramite: string | null;
  /** The DNI's ejemplar letter, when read. */
  series: string | null;
}

/** Fields the registry may name as disagreeing; any other name it sends is dropped. */
export const REGISTRY_FIELDS = ['number', 'sex', 'surname', 'given_names', 'birth_date', 'tramite', 'series'] as const;
export type RegistryField = (typeof REGISTRY_FIELDS)[number];

/**
 * The registry's answer. Only `match`, `mismatch` and `not_found` are definite; everything else (no
 * answer in time, 5xx, 4xx, a body we cannot read) is `unavailable` and asked again later.
 */
export type RegistryAnswer =
  | { kind: 'match' }
  | { kind: 'mismatch'; fields: RegistryField[] }
  | { kind: 'not_found' }
  | { kind: 'unavailable'; cause: string };

/**
 * Test mode never reaches the national registry (test data is not sent to a real provider, as codes
 * are not mailed). Its answers are decided by the last two digits of the document number, as
 * integrators' test cards are, so every branch can be tried with a document or a sample (docs/api.md
 * "Test-mode catalogue"): 97 a mismatch on the surname, 98 not found, 99 never answering (retried until
 * the window runs out, then `document_registry_unavailable`), anything else a match.
 */
/** (A `RegistryPort` of `ports.ts`, typed here by its shape: the ports import this module's types.) */
export const testModeRegistry: { verify(query: RegistryQuery, checkId: RegistryCheckId): Promise<RegistryAnswer> } = {
  verify(query: RegistryQuery): Promise<RegistryAnswer> {
    const last = query.number.slice(-2);
    if (last === '97') return Promise.resolve({ kind: 'mismatch', fields: ['surname'] });
    if (last === '98') return Promise.resolve({ kind: 'not_found' });
    if (last === '99') return Promise.resolve({ kind: 'unavailable', cause: 'test_mode_unavailable' });
    return Promise.resolve({ kind: 'match' });
  },
};

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The spec's periods, before TIME_SCALE. */
export const REGISTRY_RETRY = {
  /** How long a registry that does not answer is asked again before the step is rejected. */
  windowMs: 24 * HOUR,
  /** The wait after the first failed attempt; doubled after each one … */
  firstDelayMs: 30 * SECOND,
  /** … up to this. */
  maxDelayMs: 30 * MINUTE,
  /** Spread of each wait (±), so checks that failed together do not all come back together. */
  jitter: 0.2,
  /**
   * The session's hold on abandonment outlasts the last attempt by this much: the time to take the
   * verdict to the sessions service after giving up.
   */
  holdGraceMs: 30 * MINUTE,
} as const;

/** Until when the session is held off abandonment while a check that gives up at `giveUpAt` runs. */
export function registryHoldUntil(giveUpAt: Date, timeScale: number): Date {
  return new Date(giveUpAt.getTime() + REGISTRY_RETRY.holdGraceMs * timeScale);
}

/**
 * The wait before attempt `failed + 1`, after `failed` attempts that got no definite answer:
 * 30 s, 1 min, 2, 4, 8, 16 min, then every 30 min (±20%), times TIME_SCALE.
 */
export function registryRetryDelayMs(failed: number, timeScale: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(failed - 1, 30));
  const base = Math.min(REGISTRY_RETRY.firstDelayMs * 2 ** exponent, REGISTRY_RETRY.maxDelayMs);
  const spread = 1 + REGISTRY_RETRY.jitter * (2 * random() - 1);
  return Math.max(1, Math.round(base * spread * timeScale));
}

/**
 * When to ask again after `failed` attempts without a definite answer, or null when the check has
 * run out of time. The last attempt is made at the deadline itself, so a registry that comes back
 * just before it is still heard.
 */
export function nextRegistryAttempt(
  now: Date,
  failed: number,
  giveUpAt: Date,
  timeScale: number,
  random: () => number = Math.random,
): Date | null {
  if (now.getTime() >= giveUpAt.getTime()) return null;
  const next = now.getTime() + registryRetryDelayMs(failed, timeScale, random);
  return new Date(Math.min(next, giveUpAt.getTime()));
}

/** Every wait of a check that never gets an answer (the documented schedule; no jitter). */
export function registryRetrySchedule(timeScale = 1, windowMs: number = REGISTRY_RETRY.windowMs * timeScale): number[] {
  const waits: number[] = [];
  let elapsed = 0;
  for (let failed = 1; elapsed < windowMs; failed++) {
    const wait = Math.min(
      registryRetryDelayMs(failed, timeScale, () => 0.5),
      windowMs - elapsed,
    );
    waits.push(wait);
    elapsed += wait;
  }
  return waits;
}
