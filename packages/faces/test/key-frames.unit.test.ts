import { judgeLiveness, keyFrames } from '../src/liveness';
import { keyFramePicker } from '../src/pipeline';
import { buildChallenge, buildEmbedding, buildSubmission, framesFor } from './factories';

const fresh = { nonceAlreadyUsed: false };
const withoutEmbeddings = (frames: ReturnType<typeof framesFor>, keep: number[]) =>
  frames.map((frame, index) =>
    keep.includes(index) ? frame : { ...frame, faces: frame.faces.map((face) => ({ ...face, embedding: null })) },
  );

describe('keyFrames', () => {
  it('when three poses are held three frames each, then the reference and one frame of each held pose are chosen', () => {
    const challenge = buildChallenge(['left', 'straight', 'right']);
    const frames = framesFor(['left', 'straight', 'right']);

    const chosen = keyFrames(frames, challenge, () => 1);

    // The reference is the first straight frame (all equal); index 1 of each run's three frames.
    expect(chosen).toEqual([1, 3, 4, 7]);
  });

  it('when the draw changes, then another frame of each run is chosen', () => {
    const challenge = buildChallenge(['left', 'straight', 'right']);

    expect(keyFrames(framesFor(['left', 'straight', 'right']), challenge, (max) => max - 1)).toEqual([2, 3, 5, 8]);
  });
});

describe('judgeLiveness with key frames only', () => {
  it('when only the key frames carry embeddings and they agree, then the attempt passes', () => {
    const challenge = buildChallenge(['left', 'straight', 'right']);
    const frames = framesFor(['left', 'straight', 'right']);

    const verdict = judgeLiveness(
      challenge,
      buildSubmission(
        withoutEmbeddings(
          frames,
          keyFrames(frames, challenge, () => 0),
        ),
      ),
      fresh,
    );

    expect(verdict.passed).toBe(true);
  });

  it('when the embedded frame of one pose shows another person, then the attempt is a spoof', () => {
    const challenge = buildChallenge(['left', 'straight', 'right']);
    const frames = framesFor(['left', 'straight', 'right']);
    const chosen = keyFrames(frames, challenge, () => 0);
    const swapped = withoutEmbeddings(frames, chosen).map((frame, index) =>
      index === chosen[0] ? { ...frame, faces: [{ ...frame.faces[0]!, embedding: buildEmbedding(7) }] } : frame,
    );

    expect(judgeLiveness(challenge, buildSubmission(swapped), fresh)).toMatchObject({
      passed: false,
      reason: 'liveness_spoof_detected',
      detail: 'identity_changed',
    });
  });

  it('when a held pose has no embedded frame at all, then it cannot pass as the same person', () => {
    const challenge = buildChallenge(['left', 'straight', 'right']);
    const frames = framesFor(['left', 'straight', 'right']);

    expect(judgeLiveness(challenge, buildSubmission(withoutEmbeddings(frames, [3, 4, 5])), fresh)).toMatchObject({
      passed: false,
      detail: 'identity_changed',
    });
  });
});

describe('keyFramePicker', () => {
  const key = Buffer.alloc(32, 7);
  const draws = (pick: (max: number) => number) => [pick(3), pick(3), pick(3), pick(5)];

  it('when the same attempt is judged again with the same key, then the same frames are drawn', () => {
    expect(draws(keyFramePicker('nonce-a', key))).toEqual(draws(keyFramePicker('nonce-a', key)));
  });

  it('when the nonce or the key changes, then the draws change, and every frame of a run comes up', () => {
    const byNonce = Array.from({ length: 60 }, (_, index) => draws(keyFramePicker(`nonce-${index}`, key)).join(','));
    const byKey = Array.from({ length: 60 }, (_, index) => draws(keyFramePicker('nonce-a', Buffer.alloc(32, index))).join(','));

    expect(new Set(byNonce).size).toBeGreaterThan(20);
    expect(new Set(byKey).size).toBeGreaterThan(20);
    const firsts = byNonce.map((draw) => draw.split(',')[0]);
    expect(new Set(firsts)).toEqual(new Set(['0', '1', '2']));
  });

  it('when no key is given, then the process key is used: stable within the process', () => {
    expect(draws(keyFramePicker('nonce-b'))).toEqual(draws(keyFramePicker('nonce-b')));
  });

  it('when a run has one frame, then that frame is drawn', () => {
    const pick = keyFramePicker('nonce-c', key);
    expect([pick(1), pick(1)]).toEqual([0, 0]);
  });
});
