import { createHash } from 'node:crypto';
import { HANDOVER_TOKEN_PATTERN } from '@idv/contracts';
import { movedAwayFrom, offerHandover, takeHandover, type HandoverState } from '../src/domain/handover';

/** The hand-over's rules on the flow's stored state, without a database: offers, reuse, expiry, taking. */
const VALIDITY = 30_000;
const T0 = Date.UTC(2026, 10, 23, 12);
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const holder = (): { handover?: HandoverState } => ({});

describe('offering a hand-over code', () => {
  test('when a camera page is shown for the first time, then a fresh 256-bit token is issued and only its hash is kept', () => {
    const state = holder();
    const offer = offerHandover(state, undefined, T0, VALIDITY);
    expect(offer.issued).toBe(true);
    expect(offer.token).toMatch(HANDOVER_TOKEN_PATTERN);
    expect(offer.expiresAt).toBe(T0 + VALIDITY);
    expect(JSON.stringify(state)).not.toContain(offer.token.slice(3));
    expect(state.handover!.offers).toEqual([{ tokenHash: sha256(offer.token), expiresAt: T0 + VALIDITY }]);
  });

  test('when the page is shown again with its live token, then the same token is shown and nothing new is stored', () => {
    const state = holder();
    const first = offerHandover(state, undefined, T0, VALIDITY);
    const stored = JSON.stringify(state);
    const again = offerHandover(state, first.token, T0 + VALIDITY - 1, VALIDITY);
    expect(again).toEqual({ token: first.token, expiresAt: first.expiresAt, issued: false });
    expect(JSON.stringify(state)).toBe(stored);
  });

  test('when the page is shown again after its token expired, then a new token replaces it', () => {
    const state = holder();
    const first = offerHandover(state, undefined, T0, VALIDITY);
    const later = offerHandover(state, first.token, T0 + VALIDITY, VALIDITY);
    expect(later.issued).toBe(true);
    expect(later.token).not.toBe(first.token);
    expect(state.handover!.offers.map((offer) => offer.tokenHash)).toEqual([sha256(later.token)]);
  });

  test('when many tabs ask without a token, then at most three offers stay alive, the newest', () => {
    const state = holder();
    const tokens = Array.from({ length: 5 }, (_, i) => offerHandover(state, undefined, T0 + i, VALIDITY).token);
    expect(state.handover!.offers.map((offer) => offer.tokenHash)).toEqual(tokens.slice(-3).map(sha256));
  });

  test('when a malformed or unknown token is presented, then a new one is issued', () => {
    const state = holder();
    offerHandover(state, undefined, T0, VALIDITY);
    expect(offerHandover(state, 'ho_short', T0, VALIDITY).issued).toBe(true);
    expect(offerHandover(state, `ho_${'A'.repeat(43)}`, T0, VALIDITY).issued).toBe(true);
  });
});

describe('taking a hand-over code', () => {
  test('when a live token is taken, then every offer is spent and the old binding is remembered as moved', () => {
    const state = holder();
    const other = offerHandover(state, undefined, T0, VALIDITY);
    const offer = offerHandover(state, undefined, T0 + 1, VALIDITY);
    expect(takeHandover(state, offer.token, T0 + 2, sha256('old-secret'))).toBe(true);
    expect(state.handover!.offers).toEqual([]);
    expect(takeHandover(state, offer.token, T0 + 3, sha256('new-secret'))).toBe(false);
    expect(takeHandover(state, other.token, T0 + 3, sha256('new-secret'))).toBe(false);
    expect(movedAwayFrom(state, 'old-secret')).toBe(true);
    expect(movedAwayFrom(state, 'new-secret')).toBe(false);
    expect(movedAwayFrom(state, undefined)).toBe(false);
  });

  test('when the token expired, is unknown or there never was an offer, then it is refused and nothing changes', () => {
    const state = holder();
    expect(takeHandover(state, `ho_${'A'.repeat(43)}`, T0, sha256('old'))).toBe(false);
    const offer = offerHandover(state, undefined, T0, VALIDITY);
    const stored = JSON.stringify(state);
    expect(takeHandover(state, offer.token, T0 + VALIDITY, sha256('old'))).toBe(false);
    expect(takeHandover(state, `ho_${'B'.repeat(43)}`, T0, sha256('old'))).toBe(false);
    expect(takeHandover(state, 'lt_not-a-handover', T0, sha256('old'))).toBe(false);
    expect(JSON.stringify(state)).toBe(stored);
  });

  test('when the flow is handed over many times, then only the last five bindings are remembered', () => {
    const state = holder();
    for (let i = 0; i < 7; i++) {
      const offer = offerHandover(state, undefined, T0 + i, VALIDITY);
      expect(takeHandover(state, offer.token, T0 + i, sha256(`secret-${i}`))).toBe(true);
    }
    expect(movedAwayFrom(state, 'secret-1')).toBe(false);
    expect(movedAwayFrom(state, 'secret-2')).toBe(true);
    expect(movedAwayFrom(state, 'secret-6')).toBe(true);
  });
});
