import {
  judgeFacesSeen,
  judgeFrameTimes,
  judgeFreshness,
  judgeIdentity,
  judgeSequence,
  judgeSpoof,
  measureIdentity,
  measureSpoof,
  startJudgement,
  type Judgement,
} from '../src/verdict/stages';
import { LIVENESS_STAGES } from '../src/liveness';
import { OUTLINE_LIMIT, SCENE_CHANGE_LIMIT } from '../src/calibration/thresholds';
import { buildChallenge, buildEmbedding, buildFace, buildFrame, buildScene, buildSubmission, framesFor } from './factories';

const fresh = { nonceAlreadyUsed: false };
const STEPS = ['left', 'straight', 'right'] as const;

function judgementOf(frames = framesFor([...STEPS]), overrides: Parameters<typeof buildSubmission>[1] = {}): Judgement {
  return startJudgement(buildChallenge([...STEPS]), buildSubmission(frames, overrides), fresh);
}

/** Runs the stages before `stage` (each must pass), so `stage` sees what they recorded. */
function upTo(stage: (typeof LIVENESS_STAGES)[number], judgement: Judgement): Judgement {
  for (const before of LIVENESS_STAGES.slice(0, LIVENESS_STAGES.indexOf(stage))) expect(before(judgement)).toBeNull();
  return judgement;
}

describe('the liveness stages, each on its own', () => {
  test('startJudgement classifies each frame and summarises it, deciding nothing', () => {
    const judgement = judgementOf();
    expect(judgement.classes).toEqual(['left', 'left', 'left', 'straight', 'straight', 'straight', 'right', 'right', 'right']);
    expect(judgement.summaries[0]).toMatchObject({ index: 0, faces: 1, poseClass: 'left', similarity: null, sceneChange: null });
  });

  test('judgeFreshness refuses a reused nonce and passes a fresh one', () => {
    expect(judgeFreshness(judgementOf())).toBeNull();
    const reused = startJudgement(buildChallenge([...STEPS]), buildSubmission(framesFor([...STEPS])), { nonceAlreadyUsed: true });
    expect(judgeFreshness(reused)).toMatchObject({ reason: 'liveness_challenge_failed', detail: 'nonce_reused' });
  });

  test('judgeFacesSeen names the first frame without a face, then one with two', () => {
    const frames = framesFor([...STEPS]);
    frames[4] = buildFrame('straight', frames[4]!.atMs, { faces: [] });
    expect(judgeFacesSeen(judgementOf(frames))).toMatchObject({ reason: 'face_not_found', frameIndex: 4 });
    const two = framesFor([...STEPS]);
    two[2] = buildFrame('left', two[2]!.atMs, { faces: [buildFace(), buildFace()] });
    expect(judgeFacesSeen(judgementOf(two))).toMatchObject({ reason: 'face_multiple', detail: 'several_faces', frameIndex: 2 });
    expect(judgeFacesSeen(judgementOf())).toBeNull();
  });

  test('judgeFrameTimes refuses frames out of order in time', () => {
    const frames = framesFor([...STEPS]);
    frames[5] = { ...frames[5]!, atMs: frames[2]!.atMs - 100 };
    expect(judgeFrameTimes(upTo(judgeFrameTimes, judgementOf(frames)))).toMatchObject({ detail: 'frame_times_invalid' });
    expect(judgeFrameTimes(judgementOf())).toBeNull();
  });

  test('judgeSequence records the poses held and refuses another order', () => {
    const judgement = judgementOf();
    expect(judgeSequence(judgement)).toBeNull();
    expect(judgement.observed).toEqual([...STEPS]);
    const reversed = judgementOf(framesFor(['right', 'straight', 'left']));
    expect(judgeSequence(reversed)).toMatchObject({ detail: 'sequence_mismatch', observed: ['right', 'straight', 'left'] });
  });

  test('measureIdentity picks a straight reference frame and records each frame’s similarity', () => {
    const judgement = upTo(measureIdentity, judgementOf());
    expect(measureIdentity(judgement)).toBeNull();
    expect(judgement.identity?.referenceFrame).toBe(3);
    expect(judgement.summaries.every((summary) => summary.similarity === 1)).toBe(true);
  });

  test('measureSpoof records the scene change against the reference frame', () => {
    const frames = framesFor([...STEPS]).map((frame, index) => ({ ...frame, scene: buildScene(index === 7 ? 2 : 1) }));
    const judgement = upTo(measureSpoof, judgementOf(frames));
    expect(measureSpoof(judgement)).toBeNull();
    expect(judgement.spoof?.mostChanged).toBe(7);
    expect(judgement.spoof?.signals.sceneChange).toBeGreaterThanOrEqual(SCENE_CHANGE_LIMIT);
  });

  test('judgeIdentity refuses a frame of another person and passes one person throughout', () => {
    const frames = framesFor([...STEPS]);
    frames[7] = buildFrame('right', frames[7]!.atMs, {
      faces: [buildFace({ pose: { yaw: 30, pitch: 3, roll: 0 }, embedding: buildEmbedding(2) })],
    });
    const swapped = upTo(judgeIdentity, judgementOf(frames));
    expect(judgeIdentity(swapped)).toMatchObject({
      reason: 'liveness_spoof_detected',
      detail: 'identity_changed',
      frameIndex: 7,
    });
    expect(judgeIdentity(upTo(judgeIdentity, judgementOf()))).toBeNull();
  });

  test('judgeSpoof refuses straight edges framing the picture and passes a camera’s frames', () => {
    const framed = framesFor([...STEPS]).map((frame) => ({
      ...frame,
      spoof: { ...NEUTRAL_SPOOF, outline: OUTLINE_LIMIT + 0.1 },
    }));
    expect(judgeSpoof(upTo(judgeSpoof, judgementOf(framed)))).toMatchObject({ detail: 'outline' });
    expect(judgeSpoof(upTo(judgeSpoof, judgementOf()))).toBeNull();
  });
});

const NEUTRAL_SPOOF = {
  chromaDetail: 0,
  fineToMid: 0,
  blackLift: 0,
  saturation: 0,
  periodicPeak: 0,
  straightEdge: 0,
  outline: 0,
};
