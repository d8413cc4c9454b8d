import { captureTiming, createChallenge } from '../src/challenge';

/** A camera challenge as the flow-runner issues one: frames may span 60 s, and arrive up to 3 min after issue. */
const ISSUED_AT = 1_800_000_000_000;
const challenge = createChallenge({ attemptId: 'a1', now: ISSUED_AT, windowMs: 60_000, maxAgeMs: 180_000, holdMs: 600 });

/** Frames every 330 ms from `firstMs` after issue. */
const framesFrom = (firstMs: number, count = 24) => Array.from({ length: count }, (_, index) => firstMs + index * 330);

describe('captureTiming: the window is measured on the frames', () => {
  it('when frames taken within the window arrive long after the window would have closed (a slow upload), then they are in time', () => {
    const times = framesFrom(9_000);

    expect(captureTiming(challenge, ISSUED_AT + 150_000, times)).toEqual({ kind: 'in_time', spanMs: 23 * 330 });
  });

  it('when the frames span exactly the window, then they are in time; one millisecond more, then they expired', () => {
    expect(captureTiming(challenge, ISSUED_AT + 70_000, [1_000, 30_000, 61_000]).kind).toBe('in_time');

    expect(captureTiming(challenge, ISSUED_AT + 70_000, [1_000, 30_000, 61_001])).toMatchObject({
      kind: 'expired',
      cause: 'span_over_window',
    });
  });

  it('when the frames arrive after the challenge’s last moment, then they expired, however short their span', () => {
    expect(captureTiming(challenge, challenge.expiresAt + 1, framesFrom(170_000))).toMatchObject({
      kind: 'expired',
      cause: 'challenge_too_old',
    });
    expect(captureTiming(challenge, challenge.expiresAt, framesFrom(170_000)).kind).toBe('in_time');
  });

  it('when no maximum age is given, then the frames must arrive within the window itself', () => {
    const tight = createChallenge({ attemptId: 'a1', now: ISSUED_AT, windowMs: 20_000, holdMs: 0 });

    expect(tight.expiresAt).toBe(ISSUED_AT + 20_000);
    expect(captureTiming(tight, ISSUED_AT + 20_001, [100, 200]).kind).toBe('expired');
  });
});

describe('captureTiming: the frames’ times are believed only within what the server saw', () => {
  it('when a frame claims to be taken before the challenge was issued, then the times are invalid', () => {
    expect(captureTiming(challenge, ISSUED_AT + 10_000, [-1, 500, 900])).toMatchObject({ kind: 'times_invalid', frameIndex: 0 });
  });

  it('when a frame claims to be taken after the frames arrived, then the times are invalid', () => {
    expect(captureTiming(challenge, ISSUED_AT + 10_000, [9_000, 9_500, 10_001])).toMatchObject({
      kind: 'times_invalid',
      frameIndex: 2,
    });
    expect(captureTiming(challenge, ISSUED_AT + 10_000, [9_000, 9_500, 10_000]).kind).toBe('in_time');
  });

  it('when the times go backwards, repeat or are not numbers, then the times are invalid at that frame', () => {
    expect(captureTiming(challenge, ISSUED_AT + 10_000, [100, 100])).toMatchObject({ kind: 'times_invalid', frameIndex: 1 });
    expect(captureTiming(challenge, ISSUED_AT + 10_000, [300, 200])).toMatchObject({ kind: 'times_invalid', frameIndex: 1 });
    expect(captureTiming(challenge, ISSUED_AT + 10_000, [Number.NaN])).toMatchObject({ kind: 'times_invalid', frameIndex: 0 });
  });

  it('when a frame claims a span longer than the window but a time after arrival, then the times are what is wrong', () => {
    // A sender whose clock runs fast is not told "expired": its times are not believed at all.
    expect(captureTiming(challenge, ISSUED_AT + 10_000, [0, 75_000]).kind).toBe('times_invalid');
  });

  it('when the frames arrive before the challenge was issued, then that is said before anything else', () => {
    expect(captureTiming(challenge, ISSUED_AT - 1, [0])).toEqual({ kind: 'received_before_issue' });
  });
});
