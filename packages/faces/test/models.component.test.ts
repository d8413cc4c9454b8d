import runFaceTask from '../src/worker';
import { createChallenge } from '../src/challenge';
import { FACE_MATCH_THRESHOLD } from '../src/compare';
import { decodeImage } from '../src/decode';
import { faceEngine, startEngines, stopEngines } from '../src/engines';
import { FaceError } from '../src/errors';
import { IMAGE_LIMITS } from '../src/limits';
import { pooledFrameWork, type FrameTask, type FrameTaskResult } from '../src/frame-work';
import { analyseFrame, checkLiveness, compareFaceImages, detectFaces, embedFaceCrop, judgeFaceStep } from '../src/pipeline';
import { demoPhoto, faceCrop, plainImage } from './images';

// The models on real photos: one load (≈ 1–2 s) and about fifteen faces. On a shared 2-core machine a
// face takes 0.3–1.5 s, hence the generous timeouts.
jest.setTimeout(60_000);

beforeAll(async () => {
  await startEngines();
});

afterAll(async () => {
  await stopEngines();
});

describe('the engines', () => {
  it('when stopped with a detection asked for, then that detection still completes, and a start serves again', async () => {
    const detection = detectFaces(demoPhoto('sample3.jpg'));
    await stopEngines();
    expect((await detection).faces).toHaveLength(3);

    await startEngines();
    const engine = await faceEngine();

    expect(engine.stats.tensors).toBeGreaterThan(100);
    expect((await detectFaces(demoPhoto('sample3.jpg'))).faces).toHaveLength(3);
  });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FaceError) return error.code;
    throw error;
  }
  throw new Error('no error');
}

describe('detectFaces', () => {
  it('when a photo shows three people, then three faces come back, each with a box, a pose, an embedding and the scores', async () => {
    const result = await detectFaces(demoPhoto('sample3.jpg'));

    expect(result.faces).toHaveLength(3);
    expect(result.width).toBe(IMAGE_LIMITS.maxSide);
    for (const face of result.faces) {
      expect(face.box.width).toBeGreaterThan(200);
      expect(Math.abs(face.pose!.yaw)).toBeLessThan(25);
      expect(face.embedding).toHaveLength(1024);
      expect(face.antispoof).toBeGreaterThanOrEqual(0);
      expect(face.antispoof).toBeLessThanOrEqual(1);
      expect(face.liveness).toBeGreaterThanOrEqual(0);
    }
  });

  it('when a face is mirrored, then the yaw changes sign (the challenge’s left and right rest on it)', async () => {
    const [turned, mirrored] = [
      await detectFaces(await faceCrop('turned')),
      await detectFaces(await faceCrop('turned', { mirror: true })),
    ];

    expect(turned.faces).toHaveLength(1);
    expect(turned.faces[0]!.pose!.yaw).toBeLessThan(-20);
    expect(mirrored.faces[0]!.pose!.yaw).toBeGreaterThan(20);
  });

  it('when an image shows no face, then no face comes back', async () => {
    expect((await detectFaces(await plainImage(320, 240))).faces).toEqual([]);
  });

  it.each([
    ['no bytes', () => Promise.resolve(Buffer.alloc(0)), 'image_empty'],
    ['text', () => Promise.resolve(Buffer.from('not an image at all')), 'image_unsupported'],
    ['a 1×1 image', () => plainImage(1, 1), 'image_too_small'],
    ['a truncated JPEG', () => Promise.resolve(demoPhoto('sample1.jpg').subarray(0, 4000)), 'image_corrupt'],
  ])('when the input is %s, then a typed error says so', async (_name, bytes, code) => {
    expect(await codeOf(detectFaces(await bytes()))).toBe(code);
  });

  it('when an image has more pixels than allowed, then it is refused before decoding', async () => {
    expect(await codeOf(decodeImage(await plainImage(200, 200), { ...IMAGE_LIMITS, maxPixels: 10_000 }))).toBe(
      'image_too_many_pixels',
    );
  });
});

describe('a key frame embedded from the first pass’s crop (embedFaceCrop)', () => {
  it('when a frame’s one face is embedded from its kept crop, then the embedding is the one a new detection gives, to the last bit', async () => {
    for (const image of [await faceCrop('turned'), await faceCrop('left'), await faceCrop('turned', { mirror: true })]) {
      const firstPass = await analyseFrame(image, 0, { embed: false });
      const detectedAgain = await detectFaces(image, { embed: true, scores: false });

      expect(firstPass.faces).toHaveLength(1);
      expect(firstPass.faces[0]?.embedding).toBeNull();
      expect(firstPass.crop).not.toBeNull();
      const { embedding } = await embedFaceCrop(firstPass.crop!);
      expect(embedding).toHaveLength(1024);
      expect(embedding).toEqual(detectedAgain.faces[0]?.embedding);
    }
  });

  it('when a frame shows several faces, then no crop is kept (no key frame has several)', async () => {
    const frame = await analyseFrame(demoPhoto('sample3.jpg'), 0, { embed: false });

    expect(frame.faces).toHaveLength(3);
    expect(frame.crop).toBeNull();
  });
});

describe('compareFaceImages', () => {
  it('when one person is compared with her mirrored, smaller photo, then it is a match', async () => {
    const result = await compareFaceImages(await faceCrop('middle'), await faceCrop('middle', { mirror: true, side: 200 }));

    expect(result).toMatchObject({ match: true, threshold: FACE_MATCH_THRESHOLD, faces: [1, 1] });
    expect(result.similarity).toBeGreaterThan(0.8);
  });

  it('when two people are compared, then it is no match', async () => {
    const result = await compareFaceImages(await faceCrop('middle'), await faceCrop('left'));

    expect(result.match).toBe(false);
    expect(result.similarity).toBeLessThan(0.5);
  });

  it('when the document portrait shows a turned face, then it is not compared (no ID photo is turned)', async () => {
    const result = await compareFaceImages(await faceCrop('middle'), await faceCrop('turned'), FACE_MATCH_THRESHOLD, {
      documentPortrait: true,
    });

    expect(result).toEqual({
      similarity: null,
      threshold: FACE_MATCH_THRESHOLD,
      match: false,
      faces: [1, 1],
      refused: 'portrait_turned',
    });
  });

  it('when the document portrait is frontal, then it is compared as any photo', async () => {
    const result = await compareFaceImages(
      await faceCrop('middle'),
      await faceCrop('middle', { mirror: true, side: 200 }),
      FACE_MATCH_THRESHOLD,
      { documentPortrait: true },
    );

    expect(result).toMatchObject({ match: true, faces: [1, 1] });
  });

  it('when an image shows no face, then the comparison has no similarity and no match', async () => {
    expect(await compareFaceImages(await faceCrop('middle'), await plainImage(320, 240))).toEqual({
      similarity: null,
      threshold: FACE_MATCH_THRESHOLD,
      match: false,
      faces: [1, 0],
    });
  });
});

/** A left-then-right challenge issued for `attemptId`, and the request that answers it with `frames`. */
function leftRightAttempt(attemptId: string, nonce: string) {
  const now = 1_800_000_000_000;
  const challenge = {
    ...createChallenge({ attemptId, now, windowMs: 20_000, holdMs: 300, nonce }),
    steps: ['left' as const, 'right' as const],
  };
  return (frames: { image: Buffer; atMs: number }[]) => ({
    challenge,
    nonce,
    attemptId,
    receivedAt: now + 5_000,
    frames,
    context: { nonceAlreadyUsed: false },
    keyFrameKey: Buffer.alloc(32, 7),
  });
}

describe('checkLiveness on real frames', () => {
  const request = leftRightAttempt('att_1', 'n1');

  it('when the person turns left then right (her photo, then mirrored), then the attempt passes', async () => {
    const [left, right] = [await faceCrop('turned'), await faceCrop('turned', { mirror: true })];
    const frames = [left, left, right, right].map((image, index) => ({ image, atMs: 400 + index * 400 }));

    const { verdict, frames: analysed } = await checkLiveness(request(frames));

    expect(verdict).toMatchObject({ passed: true, observed: ['left', 'right'] });
    expect(verdict.minSimilarity).toBeGreaterThan(0.8);
    expect(analysed.every((frame) => frame.recapture !== null)).toBe(true);
  });

  it('when a still photo is shown for every frame, then the challenge fails', async () => {
    const still = await faceCrop('turned');
    const frames = [0, 1, 2, 3].map((index) => ({ image: still, atMs: 400 + index * 400 }));

    const { verdict } = await checkLiveness(request(frames));

    expect(verdict).toMatchObject({ reason: 'liveness_challenge_failed', observed: ['left'] });
  });

  it('when a frame shows a group, then the attempt fails with face_multiple', async () => {
    const frames = [
      { image: await faceCrop('turned'), atMs: 400 },
      { image: demoPhoto('sample3.jpg'), atMs: 800 },
    ];

    expect((await checkLiveness(request(frames))).verdict).toMatchObject({ reason: 'face_multiple', frameIndex: 1 });
  });

  it('when a frame shows nobody, then the attempt fails with face_not_found', async () => {
    const frames = [{ image: await plainImage(320, 320, 'jpeg'), atMs: 400 }];

    expect((await checkLiveness(request(frames))).verdict).toMatchObject({ reason: 'face_not_found', frameIndex: 0 });
  });

  it('when the nonce was used before, then the verdict comes without running the models on the frames', async () => {
    const frames = [{ image: Buffer.from('never decoded'), atMs: 400 }];

    const outcome = await checkLiveness({ ...request(frames), context: { nonceAlreadyUsed: true } });

    expect(outcome).toMatchObject({ verdict: { reason: 'liveness_challenge_failed', detail: 'nonce_reused' }, frames: [] });
  });

  it('when a frame cannot be decoded, then a typed error names the frame', async () => {
    const frames = [
      { image: await faceCrop('turned'), atMs: 400 },
      { image: Buffer.from('garbage'), atMs: 800 },
    ];

    await expect(checkLiveness(request(frames))).rejects.toMatchObject({ code: 'image_unsupported', frameIndex: 1 });
  });
});

describe('the worker entry', () => {
  it('when a task’s image is bad, then the result says so instead of rejecting', async () => {
    const result = await runFaceTask({ kind: 'face_detect', image: new Uint8Array(await plainImage(1, 1)) });

    expect(result).toMatchObject({ ok: false, kind: 'face_detect', error: { code: 'image_too_small' } });
  });

  it('when a comparison task is run, then it answers like the library', async () => {
    const crop = await faceCrop('left');

    const result = await runFaceTask({ kind: 'face_compare', a: crop, b: crop });

    expect(result).toMatchObject({ ok: true, kind: 'face_compare', comparison: { similarity: 1, match: true } });
  });
});

describe('one attempt spread over a pool (pooledFrameWork)', () => {
  const request = leftRightAttempt('att_2', 'n2');
  // What a pool's thread runs for each task (the worker entry), here answered out of order: the last
  // task sent first, as threads of unequal speed would.
  const sent: FrameTask['kind'][] = [];
  const shuffledPool = pooledFrameWork(async (task: FrameTask) => {
    sent.push(task.kind);
    await new Promise((resolve) => setTimeout(resolve, task.kind === 'face_frame' ? 50 - task.index * 10 : 0));
    return (await runFaceTask(task)) as FrameTaskResult;
  });

  it('when an attempt is judged over the pool, then its frames, verdict and document comparison are those of one thread', async () => {
    const [left, right] = [await faceCrop('turned'), await faceCrop('turned', { mirror: true })];
    const frames = [left, left, right, right].map((image, index) => ({ image, atMs: 400 + index * 400 }));
    const portrait = await faceCrop('left');
    sent.length = 0;

    const [alone, pooled] = [
      await judgeFaceStep({ ...request(frames), portrait }),
      await judgeFaceStep({ ...request(frames), portrait }, shuffledPool),
    ];

    expect(pooled.liveness.verdict).toEqual(alone.liveness.verdict);
    expect(pooled.liveness.verdict.passed).toBe(true);
    expect(pooled.document).toEqual(alone.document);
    expect(pooled.document?.similarity).not.toBeNull();
    const facesOf = (outcome: typeof alone) => outcome.liveness.frames.map((frame) => frame.faces);
    expect(facesOf(pooled)).toEqual(facesOf(alone));
    // Four frames, the portrait beside them, then the key frames' embeddings from the frames' crops.
    expect(sent.filter((kind) => kind === 'face_frame')).toHaveLength(4);
    expect(sent.filter((kind) => kind === 'face_detect')).toHaveLength(1);
    expect(sent.filter((kind) => kind === 'face_embed').length).toBeGreaterThanOrEqual(2);
    expect(pooled.liveness.frames.every((frame) => frame.crop === undefined)).toBe(true);
  });

  it('when two frames cannot be decoded, then the error names the first of them, as in one thread', async () => {
    const face = await faceCrop('turned');
    const frames = [face, Buffer.from('garbage'), face, await plainImage(1, 1)].map((image, index) => ({
      image,
      atMs: 400 + index * 400,
    }));

    await expect(checkLiveness(request(frames), shuffledPool)).rejects.toMatchObject({
      code: 'image_unsupported',
      frameIndex: 1,
    });
    await expect(checkLiveness(request(frames))).rejects.toMatchObject({ code: 'image_unsupported', frameIndex: 1 });
  });

  it('when the attempt fails, then a portrait the models refuse is no error of the step', async () => {
    const still = await faceCrop('turned');
    const frames = [0, 1, 2].map((index) => ({ image: still, atMs: 400 + index * 400 }));

    const outcome = await judgeFaceStep({ ...request(frames), portrait: Buffer.from('garbage') }, shuffledPool);

    expect(outcome.liveness.verdict).toMatchObject({ passed: false, reason: 'liveness_challenge_failed' });
    expect(outcome.document).toBeNull();
  });

  it('when the attempt passes and the portrait is refused, then the error is the second image’s', async () => {
    const [left, right] = [await faceCrop('turned'), await faceCrop('turned', { mirror: true })];
    const frames = [left, left, right, right].map((image, index) => ({ image, atMs: 400 + index * 400 }));

    await expect(judgeFaceStep({ ...request(frames), portrait: Buffer.from('garbage') }, shuffledPool)).rejects.toMatchObject({
      code: 'image_unsupported',
      frameIndex: 1,
    });
  });

  it('when a task of the pool fails (a thread that died), then it is an engine failure naming the frame', async () => {
    const failing = pooledFrameWork(async (task: FrameTask) => {
      if (task.kind === 'face_frame' && task.index === 2) throw new Error('worker exited');
      return (await runFaceTask(task)) as FrameTaskResult;
    });
    const face = await faceCrop('turned');
    const frames = [0, 1, 2].map((index) => ({ image: face, atMs: 400 + index * 400 }));

    const failure = await checkLiveness(request(frames), failing).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(FaceError);
    expect(failure).toMatchObject({ code: 'inference_failed', frameIndex: 2, isInputError: false });
  });
});
