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

describe('faceAssignment', () => {
  it('when indices run on, then every kind of every person comes up once per cycle', () => {
    const cycle = FACE_SEQUENCE_KINDS.length * FACE_SOURCES.length;
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

    expect(label).toMatchObject({ kind: 'live', expected: 'passed', identity: FACE_SOURCES[0]?.id, swapIdentity: null });
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

describe('documentPortrait', () => {
  it('when a portrait is made twice, then it is the same JPEG', async () => {
    const [a, b] = [await documentPortrait(2, options(7)), await documentPortrait(2, options(7))];
    expect(a.equals(b)).toBe(true);
    expect((await sharp(a).metadata()).format).toBe('jpeg');
  });
});
