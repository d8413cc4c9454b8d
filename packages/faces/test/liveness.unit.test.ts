import { createChallenge } from '../src/challenge';
import { faceSimilarity, FRAME_CONSISTENCY_THRESHOLD } from '../src/compare';
import { FRAME_LIMITS } from '../src/limits';
import {
  judgeLiveness,
  OUTLINE_LIMIT,
  REPLAY_INPUT_NAMES,
  REPLAY_MODEL,
  SCENE_CHANGE_LIMIT,
  replayInput,
  replayScore,
  SPOOF_LIMITS,
  type ReplayInput,
  type ReplayModel,
} from '../src/liveness';
import { SPOOF_FEATURE_NAMES, type SpoofFeatureName, type SpoofFeatures } from '../src/spoof';
import {
  buildChallenge,
  buildEmbedding,
  buildFace,
  buildFrame,
  buildScene,
  buildSubmission,
  framesFor,
  ISSUED_AT,
} from './factories';

const fresh = { nonceAlreadyUsed: false };

describe('judgeLiveness: the poses, in order', () => {
  it('when the person holds every pose in the challenge’s order, then the attempt passes', () => {
    const challenge = buildChallenge(['left', 'straight', 'right']);

    const verdict = judgeLiveness(challenge, buildSubmission(framesFor(['left', 'straight', 'right'])), fresh);

    expect(verdict).toMatchObject({ passed: true, reason: null, detail: 'passed', observed: ['left', 'straight', 'right'] });
    expect(verdict.frames).toHaveLength(9);
  });

  it('when the poses come in another order, then the challenge fails', () => {
    const challenge = buildChallenge(['left', 'straight', 'right']);

    const verdict = judgeLiveness(challenge, buildSubmission(framesFor(['right', 'straight', 'left'])), fresh);

    expect(verdict).toMatchObject({ passed: false, reason: 'liveness_challenge_failed', detail: 'sequence_mismatch' });
  });

  it('when the last pose is missing, then the challenge fails as incomplete', () => {
    const challenge = buildChallenge(['straight', 'left', 'right']);

    const verdict = judgeLiveness(challenge, buildSubmission(framesFor(['straight', 'left'])), fresh);

    expect(verdict).toMatchObject({
      reason: 'liveness_challenge_failed',
      detail: 'sequence_incomplete',
      observed: ['straight', 'left'],
    });
  });

  it('when a still photo is sent for every frame, then the challenge fails', () => {
    const challenge = buildChallenge(['straight', 'left', 'right']);

    const verdict = judgeLiveness(challenge, buildSubmission(framesFor(['straight', 'straight', 'straight'])), fresh);

    expect(verdict).toMatchObject({ reason: 'liveness_challenge_failed', detail: 'sequence_incomplete', observed: ['straight'] });
  });

  it('when the head passes through straight between left and right, then the transition does not count', () => {
    const challenge = buildChallenge(['left', 'right']);
    const frames = [
      ...framesFor(['left']),
      buildFrame('straight', 1300),
      buildFrame(16, 1400),
      ...framesFor(['right'], 3).map((f, i) => ({ ...f, atMs: 1600 + i * 250 })),
    ];

    const verdict = judgeLiveness(challenge, buildSubmission(frames), fresh);

    expect(verdict).toMatchObject({ passed: true, observed: ['left', 'right'] });
  });

  it('when the person looks at the camera before the first turn and after the last, then it is not counted against them', () => {
    const challenge = buildChallenge(['right', 'left']);

    const verdict = judgeLiveness(challenge, buildSubmission(framesFor(['straight', 'right', 'left', 'straight'])), fresh);

    expect(verdict).toMatchObject({ passed: true, observed: ['right', 'left'] });
  });

  it('when a pose is shown for less than the hold, then it is not held', () => {
    const challenge = buildChallenge(['straight', 'left', 'right'], { holdMs: 400 });
    // 150 ms between frames: two frames of a pose span 150 ms, under the 400 ms hold.
    const verdict = judgeLiveness(challenge, buildSubmission(framesFor(['straight', 'left', 'right'], 2, 150)), fresh);

    expect(verdict).toMatchObject({ reason: 'liveness_challenge_failed', observed: [] });
  });

  it('when the hold is zero, then one frame a pose is enough (the two-photo fallback)', () => {
    const challenge = buildChallenge(['straight', 'left'], { holdMs: 0 });

    const verdict = judgeLiveness(challenge, buildSubmission(framesFor(['straight', 'left'], 1)), fresh);

    expect(verdict.passed).toBe(true);
  });

  it('when a frame’s head is tilted far down, then that frame shows no pose of the challenge', () => {
    const challenge = buildChallenge(['left', 'right']);
    const frames = framesFor(['left', 'right']).map((frame) => ({
      ...frame,
      faces: [buildFace({ pose: { yaw: frame.faces[0]!.pose!.yaw, pitch: 45, roll: 0 } })],
    }));

    expect(judgeLiveness(challenge, buildSubmission(frames), fresh).observed).toEqual([]);
  });
});

describe('judgeLiveness: timing', () => {
  const challenge = buildChallenge(['straight', 'left', 'right']);
  const frames = framesFor(['straight', 'left', 'right']);

  it('when the frames arrive after the window closed, then the challenge fails as expired', () => {
    const verdict = judgeLiveness(challenge, buildSubmission(frames, { receivedAt: challenge.expiresAt + 1 }), fresh);

    expect(verdict).toMatchObject({ reason: 'liveness_challenge_failed', detail: 'expired' });
  });

  it('when frames taken within the window arrive after it closed (a slow upload), then they are judged, not expired', () => {
    // Frames may span 20 s and arrive up to 3 min after issue; these took 2.3 s and arrived after 60 s.
    const uploaded = {
      ...createChallenge({ attemptId: 'vs_test:face:1', now: ISSUED_AT, windowMs: 20_000, maxAgeMs: 180_000, holdMs: 400 }),
      steps: challenge.steps,
      nonce: 'nonce-1',
    };
    const verdict = judgeLiveness(uploaded, buildSubmission(frames, { receivedAt: ISSUED_AT + 60_000 }), fresh);

    expect(verdict).toMatchObject({ passed: true, detail: 'passed' });
  });

  it('when the frames themselves span longer than the window, then the challenge fails as expired', () => {
    const late = frames.map((frame, index) => (index === frames.length - 1 ? { ...frame, atMs: 500 + 20_001 } : frame));
    const verdict = judgeLiveness(challenge, buildSubmission(late, { receivedAt: ISSUED_AT + 20_600 }), fresh);

    expect(verdict).toMatchObject({ passed: false, detail: 'expired' });
  });

  it('when the frames arrive at the window’s last millisecond, then they are in time', () => {
    expect(judgeLiveness(challenge, buildSubmission(frames, { receivedAt: challenge.expiresAt }), fresh).passed).toBe(true);
  });

  it('when the frames claim to arrive before the challenge was issued, then they are refused', () => {
    const verdict = judgeLiveness(challenge, buildSubmission(frames, { receivedAt: ISSUED_AT - 1 }), fresh);

    expect(verdict.detail).toBe('not_yet_valid');
  });

  it('when a frame claims a time later than the server saw elapse, then the frame times are invalid', () => {
    // 2.4 s elapsed on the server; the last frame claims 2.5 s.
    const verdict = judgeLiveness(challenge, buildSubmission(frames, { receivedAt: ISSUED_AT + 2_400 }), fresh);

    expect(verdict).toMatchObject({ reason: 'liveness_challenge_failed', detail: 'frame_times_invalid', frameIndex: 8 });
  });

  it('when frames are out of order, then the frame times are invalid', () => {
    const swapped = [...frames];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];

    expect(judgeLiveness(challenge, buildSubmission(swapped), fresh)).toMatchObject({
      detail: 'frame_times_invalid',
      frameIndex: 4,
    });
  });
});

describe('judgeLiveness: the nonce', () => {
  const challenge = buildChallenge(['straight', 'left', 'right']);
  const frames = framesFor(['straight', 'left', 'right']);

  it('when the nonce was already used, then the attempt fails whatever the frames show', () => {
    const verdict = judgeLiveness(challenge, buildSubmission(frames), { nonceAlreadyUsed: true });

    expect(verdict).toMatchObject({ passed: false, reason: 'liveness_challenge_failed', detail: 'nonce_reused' });
  });

  it('when the frames carry another challenge’s nonce, then they are refused', () => {
    const verdict = judgeLiveness(challenge, buildSubmission(frames, { nonce: 'nonce-of-another-session' }), fresh);

    expect(verdict.detail).toBe('nonce_mismatch');
  });

  it('when the nonce is presented for another attempt, then it is refused', () => {
    const verdict = judgeLiveness(challenge, buildSubmission(frames, { attemptId: 'vs_test:face:2' }), fresh);

    expect(verdict.detail).toBe('attempt_mismatch');
  });
});

describe('judgeLiveness: one face per frame', () => {
  const challenge = buildChallenge(['straight', 'left', 'right']);

  it('when a frame shows no face, then the attempt fails with face_not_found and names the frame', () => {
    const frames = framesFor(['straight', 'left', 'right']);
    frames[4] = { ...frames[4]!, faces: [] };

    expect(judgeLiveness(challenge, buildSubmission(frames), fresh)).toMatchObject({
      reason: 'face_not_found',
      frameIndex: 4,
    });
  });

  it('when a frame shows two faces, then the attempt fails with face_multiple', () => {
    const frames = framesFor(['straight', 'left', 'right']);
    frames[2] = { ...frames[2]!, faces: [buildFace(), buildFace({ embedding: buildEmbedding(7) })] };

    expect(judgeLiveness(challenge, buildSubmission(frames), fresh)).toMatchObject({ reason: 'face_multiple', frameIndex: 2 });
  });

  it('when there are no frames or too many, then the challenge fails before any face is looked at', () => {
    expect(judgeLiveness(challenge, buildSubmission([]), fresh).detail).toBe('no_frames');
    const many = Array.from({ length: FRAME_LIMITS.maxFrames + 1 }, (_, index) => buildFrame('straight', 100 + index * 100));
    expect(judgeLiveness(challenge, buildSubmission(many), fresh).detail).toBe('too_many_frames');
  });
});

describe('judgeLiveness: same person, not a replay', () => {
  const challenge = buildChallenge(['straight', 'left', 'right']);

  it('when one frame shows another person, then the attempt is a spoof (a swapped face)', () => {
    const frames = framesFor(['straight', 'left', 'right']);
    frames[7] = { ...frames[7]!, faces: [buildFace({ pose: { yaw: 30, pitch: 0, roll: 0 }, embedding: buildEmbedding(9) })] };

    const verdict = judgeLiveness(challenge, buildSubmission(frames), fresh);

    expect(faceSimilarity(buildEmbedding(1), buildEmbedding(9))).toBeLessThan(FRAME_CONSISTENCY_THRESHOLD);
    expect(verdict).toMatchObject({ reason: 'liveness_spoof_detected', detail: 'identity_changed', frameIndex: 7 });
  });

  it('when the frames of one pose were taken in another room, then the attempt is a spoof (frames spliced in)', () => {
    const frames = framesFor(['straight', 'left', 'right']).map((frame, index) => ({
      ...frame,
      scene: buildScene(index >= 3 && index < 6 ? 2 : 1),
    }));

    const verdict = judgeLiveness(challenge, buildSubmission(frames), fresh);

    expect(verdict).toMatchObject({ reason: 'liveness_spoof_detected', detail: 'scene_changed', frameIndex: 3 });
    expect(verdict.spoof.sceneChange).toBeGreaterThanOrEqual(SCENE_CHANGE_LIMIT);
  });

  it('when every frame shows the same room, or a frame has no layout, then the scene does not refuse', () => {
    const frames = framesFor(['straight', 'left', 'right']).map((frame, index) => ({
      ...frame,
      scene: index === 4 ? null : buildScene(1),
    }));

    const verdict = judgeLiveness(challenge, buildSubmission(frames), fresh);

    expect(verdict).toMatchObject({ passed: true, detail: 'passed' });
    expect(verdict.spoof.sceneChange).toBe(0);
    expect(verdict.frames[4]!.sceneChange).toBeNull();
  });

  it('when the same person’s embeddings vary a little between frames, then it is still them', () => {
    const frames = framesFor(['straight', 'left', 'right']).map((frame, index) => ({
      ...frame,
      faces: [{ ...frame.faces[0]!, embedding: buildEmbedding(1, index % 3) }],
    }));

    const verdict = judgeLiveness(challenge, buildSubmission(frames), fresh);

    expect(verdict.passed).toBe(true);
    expect(verdict.minSimilarity).toBeGreaterThan(0.9);
    expect(verdict.referenceFrame).toBe(0);
  });

  it('when most frames show a screen’s periodic pattern, then the attempt is a spoof', () => {
    const frames = framesFor(['straight', 'left', 'right']).map((frame, index) => ({
      ...frame,
      // As @idv/verification's screenVerdict reports a periodic peak: it does not decide there.
      recapture: {
        score: 0.3,
        detected: false,
        judged: true,
        evidence: index % 3 !== 0 ? ('periodic' as const) : null,
        periodic: index % 3 !== 0,
      },
    }));

    expect(judgeLiveness(challenge, buildSubmission(frames), fresh)).toMatchObject({
      reason: 'liveness_spoof_detected',
      detail: 'recapture',
      spoof: { recaptureFlagged: 6, recaptureJudged: 9 },
    });
  });

  it('when the colour model decided frames that also show a periodic peak, then the peaks still count', () => {
    const frames = framesFor(['straight', 'left', 'right']).map((frame) => ({
      ...frame,
      recapture: { score: 0.9, detected: true, judged: true, evidence: 'colour' as const, periodic: true },
    }));

    expect(judgeLiveness(challenge, buildSubmission(frames), fresh)).toMatchObject({
      detail: 'recapture',
      spoof: { recaptureFlagged: 9, recaptureJudged: 9 },
    });
  });

  it('when only the colour model flags the frames, then it does not decide alone (it flags genuine portraits)', () => {
    const frames = framesFor(['straight', 'left', 'right']).map((frame) => ({
      ...frame,
      recapture: { score: 0.95, detected: true, judged: true, evidence: 'colour' as const, periodic: false },
    }));

    expect(judgeLiveness(challenge, buildSubmission(frames), fresh).passed).toBe(true);
  });

  it('when a single frame shows a periodic pattern, then one frame is not enough', () => {
    const frames = framesFor(['straight', 'left', 'right']);
    frames[1] = { ...frames[1]!, recapture: { score: 0.3, detected: false, judged: true, evidence: 'periodic', periodic: true } };

    expect(judgeLiveness(challenge, buildSubmission(frames), fresh).passed).toBe(true);
  });

  it('when the model’s antispoof scores are very low on average, then the attempt is a spoof', () => {
    const frames = framesFor(['straight', 'left', 'right']).map((frame) => ({
      ...frame,
      faces: [{ ...frame.faces[0]!, antispoof: 0.05 }],
    }));

    expect(judgeLiveness(challenge, buildSubmission(frames), fresh)).toMatchObject({
      reason: 'liveness_spoof_detected',
      detail: 'antispoof',
    });
  });
});

describe('the replay model', () => {
  const model: ReplayModel = {
    fittedOn: 'test',
    centre: {
      chromaDetail: 0.1,
      fineToMid: 1,
      blackLift: 0.05,
      saturation: 0.2,
      periodicPeak: 2,
      straightEdge: 0.6,
      antispoof: 0.6,
      liveness: 0.9,
    },
    scale: {
      chromaDetail: 0.05,
      fineToMid: 0.2,
      blackLift: 0.02,
      saturation: 0.05,
      periodicPeak: 0.5,
      straightEdge: 0.3,
      antispoof: 0.1,
      liveness: 0.1,
    },
    weights: {
      chromaDetail: 0,
      fineToMid: 0,
      blackLift: 2,
      saturation: 0,
      periodicPeak: 0,
      straightEdge: 0,
      antispoof: -1,
      liveness: 0,
    },
    bias: -1,
    threshold: 0.5,
  };

  it('when the inputs sit at the centre, then the score is the bias’s; each weight moves it by standardised units', () => {
    expect(replayScore(model.centre, model)).toBeCloseTo(1 / (1 + Math.exp(1)));
    // Black lift one scale above the centre: z = −1 + 2 = 1.
    expect(replayScore({ ...model.centre, blackLift: 0.07 }, model)).toBeCloseTo(1 / (1 + Math.exp(-1)));
  });

  it('when frames carry cues and scores, then the input is their mean over the frames that have them', () => {
    const cues = (value: number): SpoofFeatures => ({
      ...(Object.fromEntries(SPOOF_FEATURE_NAMES.map((name) => [name, value])) as Record<SpoofFeatureName, number>),
      outline: 0,
    });
    const frames = [
      buildFrame('straight', 500, { spoof: cues(1), faces: [buildFace({ antispoof: 0.2, liveness: 0.4 })] }),
      buildFrame('straight', 800, { spoof: cues(3), faces: [buildFace({ antispoof: 0.4, liveness: 0.6 })] }),
      buildFrame('straight', 1100, { spoof: null }),
    ];

    const input = replayInput(frames);

    expect(input).toMatchObject({ chromaDetail: 2, periodicPeak: 2 });
    expect(input?.antispoof).toBeCloseTo(0.3);
    expect(input?.liveness).toBeCloseTo(0.5);
    expect(replayInput([buildFrame('straight', 500)])).toBeNull();
  });

  // The fitted model (src/calibration/replay-model.json): frames pushed along its weights are refused as a replay,
  // frames pushed the other way pass. Holds for any fit with a non-zero weight.
  const along = (direction: 1 | -1): ReplayInput =>
    Object.fromEntries(
      REPLAY_INPUT_NAMES.map((name) => [
        name,
        REPLAY_MODEL.centre[name] + direction * Math.sign(REPLAY_MODEL.weights[name]) * 6 * REPLAY_MODEL.scale[name],
      ]),
    ) as ReplayInput;
  // human's scores stay within 0–1 and above the antispoof floor, so that the replay check is what decides.
  const score = (value: number) => Math.min(1, Math.max(SPOOF_LIMITS.antispoofMeanBelow + 0.01, value));
  const framesWith = (input: ReplayInput) =>
    framesFor(['straight', 'left', 'right']).map((frame) => ({
      ...frame,
      faces: [{ ...frame.faces[0]!, antispoof: score(input.antispoof), liveness: score(input.liveness) }],
      spoof: {
        ...(Object.fromEntries(SPOOF_FEATURE_NAMES.map((name) => [name, input[name]])) as Record<SpoofFeatureName, number>),
        outline: 0,
      },
    }));
  const challenge = buildChallenge(['straight', 'left', 'right']);

  it('when the frames look like a replay to the fitted model, then the attempt is a spoof', () => {
    const verdict = judgeLiveness(challenge, buildSubmission(framesWith(along(1))), fresh);

    expect(verdict).toMatchObject({ passed: false, reason: 'liveness_spoof_detected', detail: 'replay' });
    expect(verdict.spoof.replayScore).toBeGreaterThanOrEqual(REPLAY_MODEL.threshold);
  });

  it('when the frames look like a camera’s view of a face, then the replay check passes them', () => {
    const verdict = judgeLiveness(challenge, buildSubmission(framesWith(along(-1))), fresh);

    expect(verdict).toMatchObject({ passed: true, detail: 'passed' });
    expect(verdict.spoof.replayScore).toBeLessThan(REPLAY_MODEL.threshold);
  });
});

describe('the outline of a screen or a sheet', () => {
  const challenge = buildChallenge(['straight', 'left', 'right']);
  // Cues at the fitted model's centre, so that only the outline differs from a camera's view.
  const framesOutlined = (outlines: (number | null)[]) =>
    framesFor(['straight', 'left', 'right']).map((frame, index) => {
      const outline = outlines[index % outlines.length] ?? null;
      return {
        ...frame,
        spoof:
          outline === null
            ? null
            : {
                ...(Object.fromEntries(SPOOF_FEATURE_NAMES.map((name) => [name, REPLAY_MODEL.centre[name]])) as Record<
                  SpoofFeatureName,
                  number
                >),
                outline,
              },
      };
    });

  it('when straight edges frame the picture on three sides along the sequence, then the attempt is a spoof', () => {
    const verdict = judgeLiveness(challenge, buildSubmission(framesOutlined([OUTLINE_LIMIT + 0.05])), fresh);

    expect(verdict).toMatchObject({ passed: false, reason: 'liveness_spoof_detected', detail: 'outline' });
    expect(verdict.spoof.outline).toBeCloseTo(OUTLINE_LIMIT + 0.05, 3);
    expect(verdict.frames.map((frame) => frame.outline)).toContain(Math.round((OUTLINE_LIMIT + 0.05) * 1000) / 1000);
  });

  it('when only some frames are outlined and the mean stays below the limit, then the outline check passes them', () => {
    const verdict = judgeLiveness(challenge, buildSubmission(framesOutlined([OUTLINE_LIMIT + 0.3, 0.3, 0.3])), fresh);

    expect(verdict).toMatchObject({ passed: true, detail: 'passed' });
    expect(verdict.spoof.outline).toBeLessThan(OUTLINE_LIMIT);
  });

  it('when no frame was measured, then the outline is unknown and decides nothing', () => {
    const verdict = judgeLiveness(challenge, buildSubmission(framesOutlined([null])), fresh);

    expect(verdict).toMatchObject({ passed: true, detail: 'passed' });
    expect(verdict.spoof.outline).toBeNull();
  });
});
