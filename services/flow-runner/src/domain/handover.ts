import { createHash, randomBytes } from 'node:crypto';
import { isHandoverToken } from '@idv/contracts';

/**
 * Continuing on another device (issue 11): a page that needs a camera offers a QR code of a hand-over
 * URL. Opening it on another device moves the flow there: that device gets a fresh binding, and the
 * browser the flow moved from is told so. The tokens live in the flow's stored state as SHA-256 only,
 * so any replica accepts them and a copy of the database cannot open one.
 */

/** A hand-over token lives this long (scaled by TIME_SCALE): long enough to find the phone and scan. */
export const HANDOVER_VALIDITY_MS = 10 * 60_000;
/** Offers alive at once: a page open in a few tabs shows its own code; older offers are dropped. */
const MAX_OFFERS = 3;
/** Bindings the flow moved away from, remembered so that their browsers get "moved" rather than "used". */
const MAX_MOVED_FROM = 5;

export interface HandoverOffer {
  tokenHash: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** What the flow's stored state keeps of hand-overs. */
export interface HandoverState {
  offers: HandoverOffer[];
  /** SHA-256 of the binding secrets the flow was handed over from. */
  movedFrom: string[];
}

/** The token a page shows, and whether it was just issued (it must then be stored before it is shown). */
export interface OfferedToken {
  token: string;
  expiresAt: number;
  issued: boolean;
}

const hash = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

const live = (state: HandoverState, now: number) => state.offers.filter((offer) => offer.expiresAt > now);

/**
 * The token to show on a camera page. Only hashes are stored, so the page's own browser keeps the token
 * it was shown (`presented`, from a cookie): while that one is alive it is shown again; otherwise a new
 * one is issued (expired offers are dropped, and the oldest beyond `MAX_OFFERS`).
 */
export function offerHandover(
  holder: { handover?: HandoverState },
  presented: string | undefined,
  now: number,
  validityMs: number,
): OfferedToken {
  const state = holder.handover ?? { offers: [], movedFrom: [] };
  const offers = live(state, now);
  if (presented && isHandoverToken(presented)) {
    const presentedHash = hash(presented);
    const current = offers.find((offer) => offer.tokenHash === presentedHash);
    if (current) return { token: presented, expiresAt: current.expiresAt, issued: false };
  }
  const token = `ho_${randomBytes(32).toString('base64url')}`;
  const expiresAt = now + validityMs;
  holder.handover = { ...state, offers: [...offers, { tokenHash: hash(token), expiresAt }].slice(-MAX_OFFERS) };
  return { token, expiresAt, issued: true };
}

/**
 * Takes a hand-over token: true when it is alive and unused. Every offer goes with it (the codes still
 * on the old device's screens must not move the flow again), and the binding it moves away from is
 * remembered. The caller stores the change with the new binding in one versioned write.
 */
export function takeHandover(holder: { handover?: HandoverState }, token: string, now: number, fromBindingHash: string): boolean {
  const state = holder.handover;
  if (!state || !isHandoverToken(token)) return false;
  // Hashes are compared, not tokens: timing tells nothing about a token that hashes to a stored value.
  const tokenHash = hash(token);
  if (!live(state, now).some((offer) => offer.tokenHash === tokenHash)) return false;
  holder.handover = { offers: [], movedFrom: [...state.movedFrom, fromBindingHash].slice(-MAX_MOVED_FROM) };
  return true;
}

/** The browser presenting this binding secret is one the flow was handed over from. */
export function movedAwayFrom(holder: { handover?: HandoverState }, bindingSecret: string | undefined): boolean {
  if (!bindingSecret || !holder.handover) return false;
  return holder.handover.movedFrom.includes(hash(bindingSecret));
}
