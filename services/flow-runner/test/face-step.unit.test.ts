import { FlowConfigSchema, FaceStepSchema, type ArtefactId } from '@idv/contracts';
import { documentFrontBefore, initialState } from '../src/domain/engine';
import { decodeFaceFrames, encodeFaceFrames } from '../src/domain/face-frames';
import { applyFaceJudgement, FACE_TIMINGS, newChallenge, parseFrameTimes } from '../src/domain/steps/face';
import { type FaceFrameSet, type FaceJudgement, type StoredChallenge } from '../src/domain/steps/face-state';
import type { StepState } from '../src/domain/steps/types';

const STEP = FaceStepSchema.parse({ id: 'face', type: 'face_liveness', compareWithDocument: true });
const NOW = new Date('2026-11-23T12:00:00Z');

type Judged = Extract<FaceJudgement, { kind: 'judged' }>;

function buildJudgement(overrides: Partial<Judged> = {}): Judged {
  return {
    kind: 'judged',
    method: 'camera',
    liveness: {
      passed: true,
      reason: null,
      detail: 'passed',
      observed: ['straight', 'left', 'right'],
      challenge: ['straight', 'left', 'right'],
      minSimilarity: 0.8,
      spoof: { recaptureFlagged: 0, recaptureJudged: 6, antispoofMean: 0.6, livenessMean: 0.9 },
    },
    document: { kind: 'compared', similarity: 0.9, threshold: 0.58, match: true },
    selfieArtefactId: 'art_1_selfie',
    ...overrides,
  };
}

const failedLiveness = (reason: 'face_not_found' | 'liveness_challenge_failed') =>
  buildJudgement({
    liveness: { ...buildJudgement().liveness, passed: false, reason, detail: 'sequence_mismatch' },
    document: null,
  });

/** A step state judging the given artefact after `attempts` attempts. */
const judging = (attempts: number, artefactId: ArtefactId = 'art_1'): StepState => ({
  status: 'pending',
  face: { attempts, judging: { artefactId, method: 'camera' } },
});

describe('the face challenge', () => {
  test('when a camera challenge is created, then it asks for all three poses in a random order, scaled by TIME_SCALE', () => {
    const orders = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const challenge = newChallenge({ sessionId: 'vs_1', timeScale: 0.5, now: NOW }, 'face', 1, 'camera');
      orders.add(challenge.steps.join(','));
      expect([...challenge.steps].sort()).toEqual(['left', 'right', 'straight']);
      expect(challenge.windowMs).toBe(FACE_TIMINGS.cameraWindowMs * 0.5);
      expect(challenge.expiresAt - challenge.issuedAt).toBe(FACE_TIMINGS.cameraMaxAgeMs * 0.5);
      expect(challenge.holdMs).toBe(FACE_TIMINGS.holdMs * 0.5);
      expect(challenge.attemptId).toBe('vs_1:face:1');
    }
    expect(orders.size).toBeGreaterThan(3);
  });

  test('when two challenges are created, then their nonces differ', () => {
    const a = newChallenge({ sessionId: 'vs_1', timeScale: 1, now: NOW }, 'face', 1, 'camera');
    const b = newChallenge({ sessionId: 'vs_1', timeScale: 1, now: NOW }, 'face', 1, 'camera');
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.nonce.length).toBeGreaterThanOrEqual(24);
  });

  test('when the two-photo fallback starts, then it asks for straight then one turn, with no hold', () => {
    const left = newChallenge({ sessionId: 'vs_1', timeScale: 1, now: NOW }, 'face', 2, 'upload', () => 0);
    const right = newChallenge({ sessionId: 'vs_1', timeScale: 1, now: NOW }, 'face', 2, 'upload', () => 1);
    expect(left.steps[0]).toBe('straight');
    expect(new Set([left.steps[1], right.steps[1]])).toEqual(new Set(['left', 'right']));
    expect(left).toMatchObject({ method: 'upload', holdMs: 0 });
  });

  test('when frame times are parsed, then only one non-negative integer per frame is taken', () => {
    expect(parseFrameTimes('0, 250,500', 3)).toEqual([0, 250, 500]);
    expect(parseFrameTimes('0,250', 3)).toBeNull();
    expect(parseFrameTimes('0,-1,5', 3)).toBeNull();
    expect(parseFrameTimes('0,1.5,5', 3)).toBeNull();
    expect(parseFrameTimes(undefined, 1)).toBeNull();
  });
});

describe('the face judgement', () => {
  test('when liveness passes and the face matches the document, then the step passes and the evidence is kept', () => {
    const state = judging(1);
    expect(applyFaceJudgement(STEP, state, 'art_1', buildJudgement())).toEqual({ kind: 'passed' });
    expect(state.face?.judging).toBeUndefined();
    expect(state.face?.evidence?.[0]).toMatchObject({ method: 'camera', passed: true, comparison: { similarity: 0.9 } });
    expect(JSON.stringify(state)).not.toContain('embedding');
  });

  test('when a judgement arrives for frames no longer awaited, then nothing changes', () => {
    const state = judging(1, 'art_2');
    expect(applyFaceJudgement(STEP, state, 'art_1', buildJudgement())).toEqual({ kind: 'stale' });
    expect(state.face?.judging?.artefactId).toBe('art_2');
  });

  test('when liveness fails before the last attempt, then the person may try again and is told why', () => {
    const state = judging(1);
    expect(applyFaceJudgement(STEP, state, 'art_1', failedLiveness('face_not_found'))).toEqual({ kind: 'stay' });
    expect(state.face?.last).toBe('face_not_found');
  });

  test('when the last attempt fails, then the step fails with that attempt’s reason', () => {
    const state = judging(3);
    expect(applyFaceJudgement(STEP, state, 'art_1', failedLiveness('liveness_challenge_failed'))).toEqual({
      kind: 'failed',
      reason: 'liveness_challenge_failed',
    });
  });

  test('when the face does not match the document, then it is face_mismatch, retried until the attempts run out', () => {
    const mismatch = buildJudgement({ document: { kind: 'compared', similarity: 0.3, threshold: 0.58, match: false } });
    expect(applyFaceJudgement(STEP, judging(1), 'art_1', mismatch)).toEqual({ kind: 'stay' });
    expect(applyFaceJudgement(STEP, judging(3), 'art_1', mismatch)).toEqual({ kind: 'failed', reason: 'face_mismatch' });
  });

  test('when the document has no usable portrait, then the step fails at once with face_document_photo_missing', () => {
    expect(applyFaceJudgement(STEP, judging(1), 'art_1', buildJudgement({ document: { kind: 'missing' } }))).toEqual({
      kind: 'failed',
      reason: 'face_document_photo_missing',
    });
    const noFaceInPortrait = buildJudgement({ document: { kind: 'compared', similarity: null, threshold: 0.58, match: false } });
    expect(applyFaceJudgement(STEP, judging(1), 'art_1', noFaceInPortrait)).toEqual({
      kind: 'failed',
      reason: 'face_document_photo_missing',
    });
  });

  test('when the judge finds the frames came too late, then the attempt is given back and the advice says so, differently the second time', () => {
    const late = buildJudgement({
      liveness: { ...buildJudgement().liveness, passed: false, reason: 'liveness_challenge_failed', detail: 'expired' },
      document: null,
    });
    // The step's last attempt: a late one does not end the step.
    const state = judging(STEP.maxAttempts);

    expect(applyFaceJudgement(STEP, state, 'art_1', late)).toEqual({ kind: 'stay' });
    expect(state.face).toMatchObject({ attempts: STEP.maxAttempts - 1, expiries: 1, last: 'expired' });
    expect(state.face?.evidence).toBeUndefined();
    state.face!.attempts = STEP.maxAttempts;
    state.face!.judging = { artefactId: 'art_2', method: 'camera' };
    expect(applyFaceJudgement(STEP, state, 'art_2', late)).toEqual({ kind: 'stay' });
    expect(state.face).toMatchObject({ attempts: STEP.maxAttempts - 1, expiries: 2, last: 'expired_again' });
  });

  test('when the frames could not be judged at all, then the attempt is given back', () => {
    const state = judging(2);
    expect(applyFaceJudgement(STEP, state, 'art_1', { kind: 'unjudged', problem: 'engine_failed' })).toEqual({ kind: 'stay' });
    expect(state.face).toMatchObject({ attempts: 1, last: 'retry' });
  });
});

describe('the frames artefact', () => {
  test('when a frame set is encoded and decoded, then frames, times and the challenge come back unchanged', () => {
    const challenge: StoredChallenge = {
      ...newChallenge({ sessionId: 'vs_1', timeScale: 1, now: NOW }, 'face', 1, 'camera'),
    };
    const set: FaceFrameSet = {
      challenge,
      nonce: challenge.nonce,
      receivedAt: NOW.getTime() + 5000,
      frames: [
        { image: Buffer.from([1, 2, 3]), atMs: 10 },
        { image: Buffer.from([4, 5]), atMs: 700 },
      ],
      compareWithDocument: true,
      documentFront: 'art_front',
    };
    const decoded = decodeFaceFrames(encodeFaceFrames(set));
    expect(decoded).toEqual(set);
    expect(() => decodeFaceFrames(encodeFaceFrames(set).subarray(0, -1))).toThrow('truncated');
  });
});

describe('the face step configuration', () => {
  test('when a document step comes before the face step, then compareWithDocument defaults to true; otherwise false', () => {
    const parse = (steps: unknown[]) => FlowConfigSchema.parse({ steps }).steps;
    expect(
      parse([
        { id: 'doc', type: 'document_ar' },
        { id: 'face', type: 'face_liveness' },
      ])[1],
    ).toMatchObject({
      compareWithDocument: true,
    });
    expect(
      parse([
        { id: 'face', type: 'face_liveness' },
        { id: 'doc', type: 'document_ar' },
      ])[0],
    ).toMatchObject({
      compareWithDocument: false,
    });
    expect(
      parse([
        { id: 'doc', type: 'document_ar' },
        { id: 'face', type: 'face_liveness', compareWithDocument: false },
      ])[1],
    ).toMatchObject({ compareWithDocument: false });
    // A document offered as an option may not be taken: it does not count.
    expect(
      parse([
        {
          id: 'pick',
          type: 'choice',
          min: 1,
          options: [
            { id: 'doc', type: 'document_ar' },
            { id: 'mail', type: 'otp_email' },
          ],
        },
        { id: 'face', type: 'face_liveness' },
      ])[1],
    ).toMatchObject({ compareWithDocument: false });
  });

  test('when the document step before passed with an accepted front, then its front is the one compared', () => {
    const config = FlowConfigSchema.parse({
      steps: [
        { id: 'doc', type: 'document_ar' },
        { id: 'face', type: 'face_liveness' },
      ],
    });
    const state = initialState();
    expect(documentFrontBefore({ config, state }, 'face')).toBeNull();
    state.steps.doc = {
      status: 'passed',
      document: { captures: { front: { artefactId: 'art_f', status: 'accepted', attempts: 1 } } },
    };
    expect(documentFrontBefore({ config, state }, 'face')).toBe('art_f');
    state.steps.doc.status = 'failed';
    expect(documentFrontBefore({ config, state }, 'face')).toBeNull();
  });
});
