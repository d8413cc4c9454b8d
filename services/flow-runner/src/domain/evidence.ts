import type { ArtefactId, SessionId } from '@idv/contracts';
import { createHmac } from 'node:crypto';
import { safeEqual } from '@idv/kit';

/** Spec "Limits": an evidence link lives 5 minutes (scaled by TIME_SCALE). */
export const EVIDENCE_LINK_LIFETIME_MS = 5 * 60_000;

/** Public path of a download; the session id and the artefact id both in it, so a lookup is scoped by session. */
export const EVIDENCE_PATH_PREFIX = '/evidence';

/** Unix milliseconds as a link writes them: digits, no leading zero (so one instant has one spelling). */
const EXPIRES_PATTERN = /^[1-9][0-9]{0,15}$/;
/** The last instant a Date can hold (ECMA-262 time value range); below 2^53, so the digits convert exactly. */
const LATEST_INSTANT_MS = 8_640_000_000_000_000;

/**
 * The `expires` of a link as the instant it names, or null when it is not written exactly as a link writes
 * it: the signature covers the number, so any other spelling of it (`0…`, `+…`) must not pass as the same link.
 */
export function parseExpires(value: string | undefined): number | null {
  if (value === undefined || !EXPIRES_PATTERN.test(value)) return null;
  const instant = Number(value);
  return instant <= LATEST_INSTANT_MS ? instant : null;
}

/**
 * HMAC-SHA256 over what a link grants: this artefact of this session until this instant. The key never
 * leaves the flow-runner (it both signs and checks), so there is nothing to share or rotate elsewhere.
 */
export class EvidenceSigner {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new Error('the evidence link key must have at least 32 bytes');
  }

  sign(sessionId: SessionId, artefactId: ArtefactId, expiresAtMs: number): string {
    return createHmac('sha256', this.key)
      .update(`idv-evidence-v1\n${sessionId}\n${artefactId}\n${expiresAtMs}`)
      .digest('base64url');
  }

  /**
   * The presented text against the text a link carries, in constant time. Decoding first would let other
   * spellings of the same bytes through: the last of the 43 characters has 2 bits a decoder ignores, and
   * Node's decoder also takes `+`, `/` and `=`.
   */
  verify(sessionId: SessionId, artefactId: ArtefactId, expiresAtMs: number, signature: string): boolean {
    return safeEqual(signature, this.sign(sessionId, artefactId, expiresAtMs));
  }
}
