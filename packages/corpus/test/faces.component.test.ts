import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import {
  documentPortrait,
  FACE_FRAME,
  FACE_SEQUENCE_KINDS,
  FACE_SOURCES,
  FACE_TRIANGLES,
  faceAssignment,
  generateFaceSequence,
  headTilt,
  LIVE_FACE_SOURCES,
  liveEligibility,
  type FaceCorpusOptions,
} from '../src';

// The source photos ship in @vladmandic/face-api, a devDependency of @idv/faces (docs/faces.md).
const DEMO = path.join(
  path.dirname(require.resolve('@vladmandic/face-api', { paths: [path.join(__dirname, '..', '..', 'faces')] })),
  '..',
  'demo',
);
const options = (seed: number): FaceCorpusOptions => ({ seed, readPhoto: (name) => readFileSync(path.join(DEMO, name)) });
const digest = (frames: Buffer[]) => createHash('sha256').update(Buffer.concat(frames)).digest('hex');

// Under a few seconds a sequence on a quiet machine; the shared 2-core machine can take ten times that.
jest.setTimeout(120_000);

describe('face sources', () => {
  it('when the sources are read, then every face has a box, a 468-point mesh and the triangulation indexes it', () => {
    expect(FACE_SOURCES).toHaveLength(22);
    expect(new Set(FACE_SOURCES.map((source) => source.id)).size).toBe(22);
    for (const source of FACE_SOURCES) {
      expect(source.mesh).toHaveLength(468);
      expect(source.box[2]).toBeGreaterThan(200);
    }
    expect(FACE_TRIANGLES.length % 3).toBe(0);
    expect(Math.max(...FACE_TRIANGLES)).toBe(467);
  });
});

describe('live eligibility', () => {
  it('when the measured turn responses are read, then the people kept can turn both ways and the others say why not', () => {
    expect(LIVE_FACE_SOURCES.length).toBeGreaterThanOrEqual(5);
    for (const source of FACE_SOURCES) {
      const { eligible, reason } = liveEligibility(source);
      expect(eligible).toBe(LIVE_FACE_SOURCES.includes(source));
      if (!eligible) expect(reason).toMatch(/straight|left|right/);
    }
  });

  it('when a face without a measured response is asked, then it is not eligible', () => {
    const source = FACE_SOURCES[0]!;
    expect(liveEligibility({ ...source, turnResponse: undefined }).eligible).toBe(false);
  });
});

describe('headTilt', () => {
  it('when the forehead is straight above the chin, then the tilt is 0; leaning right, positive', () => {
    const mesh = Array.from({ length: 468 }, () => [0, 0, 0] as const) as (readonly [number, number, number])[];
    mesh[10] = [100, 0, 0];
    mesh[152] = [100, 200, 0];
    expect(headTilt(mesh)).toBeCloseTo(0);
    mesh[152] = [300, 200, 0];
    expect(headTilt(mesh)).toBeCloseTo(Math.PI / 4);
  });
});

describe('faceAssignment', () => {
  it('when indices run on, then every kind of every live-eligible person comes up once per cycle', () => {
    const cycle = FACE_SEQUENCE_KINDS.length * LIVE_FACE_SOURCES.length;
    const seen = new Set(
      Array.from({ length: cycle }, (_, index) => {
        const { kind, source } = faceAssignment(index);
        return `${kind}/${source.id}`;
      }),
    );
    expect(seen.size).toBe(cycle);
    expect(faceAssignment(cycle + 3)).toEqual(faceAssignment(3));
  });
});

describe('generateFaceSequence', () => {
  it('when the same seed and index are generated twice, then the frames are byte-identical; another seed differs', async () => {
    const [first, again, other] = [
      await generateFaceSequence(0, options(7)),
      await generateFaceSequence(0, options(7)),
      await generateFaceSequence(0, options(8)),
    ];

    expect(digest(again.frames)).toBe(digest(first.frames));
    expect(again.label).toEqual(first.label);
    expect(digest(other.frames)).not.toBe(digest(first.frames));
  });

  it('when a live sequence is made, then its frames follow the challenge it answers, in time order, at the frame size', async () => {
    const { label, frames } = await generateFaceSequence(0, options(7));

    expect(label).toMatchObject({ kind: 'live', expected: 'passed', identity: LIVE_FACE_SOURCES[0]?.id, swapIdentity: null });
    expect([...label.steps].sort()).toEqual(['left', 'right', 'straight']);
    expect(frames).toHaveLength(9);
    expect(label.frames.map((frame) => frame.pose)).toEqual(label.steps.flatMap((step) => [step, step, step]));
    expect(label.frames.every((frame, index) => index === 0 || frame.atMs > (label.frames[index - 1]?.atMs ?? 0))).toBe(true);
    const meta = await sharp(frames[0]).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', FACE_FRAME.width, FACE_FRAME.height]);
  });

  it('when a swap is made, then the second pose shows another person and the rest the sequence’s own', async () => {
    const { label } = await generateFaceSequence(4, options(7));

    expect(label).toMatchObject({ kind: 'swap', expected: 'refused' });
    expect(label.swapIdentity).not.toBe(label.identity);
    expect(label.frames.map((frame) => frame.identity)).toEqual([
      ...Array(3).fill(label.identity),
      ...Array(3).fill(label.swapIdentity),
      ...Array(3).fill(label.identity),
    ]);
  });

  it('when a still is made, then every frame is the straight photo, whatever the challenge asks', async () => {
    const { label } = await generateFaceSequence(3, options(7));

    expect(label).toMatchObject({ kind: 'still', expected: 'refused' });
    expect(new Set(label.frames.map((frame) => frame.pose))).toEqual(new Set(['straight']));
    expect(new Set(label.frames.map((frame) => frame.rotationDeg)).size).toBe(1);
  });
});

describe('screen replays', () => {
  it('when a screen replay is made, then it films a screen at a pitch a phone at arm’s length sees, every frame at the frame size', async () => {
    const { label, frames } = await generateFaceSequence(1, options(7));

    expect(label.kind).toBe('screen');
    const pitch = Number(label.recapture?.pixel_pitch_px);
    expect(pitch).toBeGreaterThanOrEqual(0.45);
    expect(pitch).toBeLessThanOrEqual(2.5);
    expect(label.recapture?.fine).toBe(pitch < 1.2);
    const sizes = await Promise.all(frames.map(async (frame) => (await sharp(frame).metadata()).width));
    expect(new Set(sizes)).toEqual(new Set([FACE_FRAME.width]));
  });
});

describe('documentPortrait', () => {
  it('when a portrait is made twice, then it is the same JPEG', async () => {
    const [a, b] = [await documentPortrait(2, options(7)), await documentPortrait(2, options(7))];
    expect(a.equals(b)).toBe(true);
    expect((await sharp(a).metadata()).format).toBe('jpeg');
  });
});
