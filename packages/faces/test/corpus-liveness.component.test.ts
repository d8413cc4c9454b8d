import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { documentPortrait, faceSourceIndex, generateFaceSequence, type FaceSequence } from '@idv/corpus';
import { createChallenge } from '../src/challenge';
import { startEngines, stopEngines } from '../src/engines';
import { OUTLINE_LIMIT, SCENE_CHANGE_LIMIT } from '../src/liveness';
import { pooledFrameWork, type FrameTask, type FrameTaskResult } from '../src/frame-work';
import { checkLiveness, compareFaceImages, detectFaces, judgeFaceStep } from '../src/pipeline';
import runFaceTask from '../src/worker';

// The service's way: every image a task of the worker entry, as the face pool's threads run them.
const poolWork = pooledFrameWork(async (task: FrameTask) => (await runFaceTask(task)) as FrameTaskResult);

// The calibrated liveness, with the real models, on a handful of the face corpus's sequences (seed 11,
// the benchmark's, so these are frames bench/faces judged the same way): the live one passes, each attack
// is refused. bench/faces measures the rates over the whole corpus.
jest.setTimeout(90_000);

const DEMO = path.join(path.dirname(require.resolve('@vladmandic/face-api')), '..', 'demo');
const SEED = 11;
// The five sequences of person faceapi-s4-2 (15–19, corpus version 3); the kinds are asserted below. In
// the benchmark every pair of its live sequence's frames measured at least 0.73, far from the 0.58
// threshold, so the key frames drawn do not decide the test; its swapped frames measured at most 0.47.
const [LIVE, SCREEN, PRINT, STILL, SWAP] = [15, 16, 17, 18, 19];

const readPhoto = (name: string) => readFileSync(path.join(DEMO, name));

// The benchmark's draw of key frames (bench/faces/run.mjs): its key, and a nonce named after the sequence.
const BENCH_KEY_FRAME_KEY = createHash('sha256').update('bench/faces key frames').digest();

async function attemptOf(index: number, draw: 'random' | 'bench' = 'random') {
  const sequence: FaceSequence = await generateFaceSequence(index, { seed: SEED, readPhoto });
  const issuedAt = 1_800_000_000_000;
  const nonce = draw === 'bench' ? { nonce: `n-${sequence.label.id}` } : {};
  const challenge = {
    ...createChallenge({ attemptId: sequence.label.id, now: issuedAt, windowMs: 20_000, holdMs: 300, ...nonce }),
    steps: sequence.label.steps,
  };
  return {
    sequence,
    request: {
      challenge,
      nonce: challenge.nonce,
      attemptId: challenge.attemptId,
      receivedAt: issuedAt + (sequence.label.frames.at(-1)?.atMs ?? 0) + 200,
      frames: sequence.frames.map((image, position) => ({ image, atMs: sequence.label.frames[position]?.atMs ?? 0 })),
      context: { nonceAlreadyUsed: false },
      ...(draw === 'bench' ? { keyFrameKey: BENCH_KEY_FRAME_KEY } : {}),
    },
  };
}

// A sequence is judged once per draw and its verdict shared by the tests that look at different parts of it
// (the live sequence's pass, scene change and outline): each judgement costs seconds of CPU with the models.
const judgements = new Map<string, ReturnType<typeof judgeNow>>();

async function judgeNow(index: number, draw: 'random' | 'bench') {
  const { sequence, request } = await attemptOf(index, draw);
  const { verdict } = await checkLiveness(request);
  return { kind: sequence.label.kind, verdict };
}

function judge(index: number, draw: 'random' | 'bench' = 'random') {
  const key = `${index}:${draw}`;
  const judged = judgements.get(key) ?? judgeNow(index, draw);
  judgements.set(key, judged);
  return judged;
}

beforeAll(async () => {
  await startEngines();
});

afterAll(async () => {
  await stopEngines();
});

describe('checkLiveness on the face corpus', () => {
  it('when a live sequence follows its challenge, then it passes', async () => {
    const { kind, verdict } = await judge(LIVE);
    expect(kind).toBe('live');
    expect({ passed: verdict.passed, detail: verdict.detail }).toEqual({ passed: true, detail: 'passed' });
  });

  it.each([
    ['a video replayed on a screen', SCREEN, 'screen'],
    ['a print tilted the way the challenge asks', PRINT, 'print'],
    ['a face swapped for one pose', SWAP, 'swap'],
    // A still photo is refused below, through the face step (its liveness verdict is this one's).
  ])('when the camera sees %s, then it is refused', async (_name, index, kind) => {
    const result = await judge(index);
    expect(result.kind).toBe(kind);
    expect(result.verdict.passed).toBe(false);
  });
});

describe('the scene along the sequence', () => {
  // Seed 11's swap 24: faceapi-s5-1's second pose held by faceapi-s4-3, from another photo. The other
  // person's warped turn measured 0.67 against the reference, above the identity threshold, and the
  // benchmark accepted the sequence before the scene was compared; its spliced frames changed by 0.72.
  it('when one pose’s frames come from another recording, then the scene change refuses the attempt', async () => {
    const { sequence, request } = await attemptOf(24);
    expect(sequence.label.kind).toBe('swap');

    const { verdict } = await checkLiveness(request);

    expect(verdict.passed).toBe(false);
    expect(verdict.spoof.sceneChange).toBeGreaterThanOrEqual(SCENE_CHANGE_LIMIT);
    const spliced = sequence.label.frames.flatMap((frame, index) => (frame.identity === sequence.label.identity ? [] : [index]));
    const changed = verdict.frames.flatMap((frame, index) => ((frame.sceneChange ?? 0) >= SCENE_CHANGE_LIMIT ? [index] : []));
    expect(changed.length).toBeGreaterThan(0);
    expect(spliced).toEqual(expect.arrayContaining(changed));
  });

  it('when a live sequence turns its head in front of one scene, then the scene change stays below the limit', async () => {
    const { verdict } = await judge(LIVE);

    expect(verdict.spoof.sceneChange).not.toBeNull();
    expect(verdict.spoof.sceneChange!).toBeLessThan(SCENE_CHANGE_LIMIT);
  });
});

describe('the outline of a screen', () => {
  // Seed 11's screen 76: faceapi-s1-0's recording on a screen turned 5°, its dark bezel in view on three
  // sides. With the benchmark's key frames every other check passed it (replay score below the model's
  // threshold) until the outline was measured: 1.8 along the sequence, where no genuine sequence of the
  // corpus reached 0.6. (Other draws of key frames can embed a frame the screen blurred below the identity
  // threshold and refuse it as `identity_changed` first.)
  it('when a screen’s bezel frames the picture on three sides, then the outline refuses the attempt', async () => {
    const { kind, verdict } = await judge(76, 'bench');
    expect(kind).toBe('screen');

    expect(verdict).toMatchObject({ passed: false, reason: 'liveness_spoof_detected', detail: 'outline' });
    expect(verdict.spoof.outline).toBeGreaterThanOrEqual(OUTLINE_LIMIT);
  });

  it('when a live sequence is filmed in front of its room, then the outline stays below the limit', async () => {
    const { verdict } = await judge(LIVE);

    expect(verdict.spoof.outline).not.toBeNull();
    expect(verdict.spoof.outline!).toBeLessThan(OUTLINE_LIMIT / 2);
  });
});

describe('one face seen twice', () => {
  // Seed 12's live sequence 15 (faceapi-s4-2): in its frame 3 the mesh-refined boxes of human include one
  // stretched over the hair and cheek beside the face (0.63 of the face's box inside it), which made the
  // live sequence a `face_multiple` before detections were merged.
  it('when the detector boxes one face twice, then the frame has one face, the sure detection', async () => {
    const sequence = await generateFaceSequence(15, { seed: 12, readPhoto: (name) => readFileSync(path.join(DEMO, name)) });
    expect(sequence.label.kind).toBe('live');

    const { faces } = await detectFaces(sequence.frames[3] as Buffer);

    expect(faces).toHaveLength(1);
    expect(faces[0]?.score).toBe(1);
  });
});

describe('the face step with the document portrait, its images as the pool runs them', () => {
  it('when a live attempt passes, then its reference frame is compared with the portrait as a separate comparison would', async () => {
    // Person faceapi-s3-1's live sequence: its portrait is frontal (faceapi-s4-2's, LIVE's, reads turned
    // and is refused as a document photo); the benchmark compared them at 0.879.
    const { sequence, request } = await attemptOf(10);
    expect(sequence.label.kind).toBe('live');
    const portrait = await documentPortrait(faceSourceIndex(sequence.label.identity), { seed: SEED, readPhoto });

    const result = await judgeFaceStep({ ...request, portrait }, poolWork);

    const reference = result.liveness.verdict.referenceFrame;
    expect(reference).not.toBeNull();
    // The same frame detected again and compared on its own: the same faces, the same similarity.
    const separate = await compareFaceImages(sequence.frames[reference ?? 0] as Buffer, portrait, undefined, {
      documentPortrait: true,
    });
    expect(result.document).toEqual(separate);
    expect(result.document?.match).toBe(true);
  });

  it('when the camera sees a still photo, then the attempt is refused and no comparison is made', async () => {
    const { sequence, request } = await attemptOf(STILL);
    expect(sequence.label.kind).toBe('still');
    const portrait = await documentPortrait(0, { seed: SEED, readPhoto });

    const result = await judgeFaceStep({ ...request, portrait }, poolWork);

    expect(result).toMatchObject({ document: null, liveness: { verdict: { passed: false } } });
  });
});
