import { oneDetectionPerFace, overlapOfSmaller, SAME_FACE_OVERLAP } from '../src/overlap';

const face = (x: number, y: number, width: number, height: number, score: number) => ({
  box: { x, y, width, height },
  score,
});

describe('overlapOfSmaller', () => {
  it('when one box lies inside the other, then the overlap is 1', () => {
    expect(overlapOfSmaller(face(156, 159, 202, 202, 1).box, face(256, 228, 88, 88, 1).box)).toBe(1);
  });

  it('when the boxes only touch or are apart, then the overlap is 0', () => {
    expect(overlapOfSmaller(face(0, 0, 10, 10, 1).box, face(10, 0, 10, 10, 1).box)).toBe(0);
    expect(overlapOfSmaller(face(0, 0, 10, 10, 1).box, face(50, 50, 10, 10, 1).box)).toBe(0);
  });

  it('when a box is empty, then nothing overlaps it', () => {
    expect(overlapOfSmaller(face(0, 0, 0, 10, 1).box, face(0, 0, 10, 10, 1).box)).toBe(0);
  });

  it('is symmetric and measured on the smaller box', () => {
    const big = face(0, 0, 100, 100, 1).box;
    const small = face(80, 0, 40, 40, 1).box;

    expect(overlapOfSmaller(big, small)).toBeCloseTo(0.5, 12);
    expect(overlapOfSmaller(small, big)).toBeCloseTo(0.5, 12);
  });
});

describe('oneDetectionPerFace', () => {
  it('when a half face is detected inside the whole one (corpus seed 12, f12-0003), then only the whole one is kept', () => {
    const whole = face(156, 159, 202, 202, 1);
    const half = face(256, 228, 88, 88, 0.84);

    expect(oneDetectionPerFace([whole, half])).toEqual([whole]);
  });

  it('when a box stretched over the hair and cheek is larger but less sure (f12-0065), then the sure one is kept', () => {
    const stretched = face(0, 189, 259, 351, 0.52);
    const real = face(88, 142, 278, 277, 1);

    expect(oneDetectionPerFace([stretched, real])).toEqual([real]);
  });

  it('when two people stand side by side, heads close (the group photos: at most 0.112), then both are kept', () => {
    // faceapi-s6-2 and faceapi-s6-3 as measured on sample6.jpg are 0.112; this pair is 0.2.
    const left = face(0, 0, 100, 100, 1);
    const right = face(80, 0, 100, 100, 0.9);

    expect(overlapOfSmaller(left.box, right.box)).toBeLessThan(SAME_FACE_OVERLAP);
    expect(oneDetectionPerFace([left, right])).toEqual([left, right]);
  });

  it('when equally sure detections of one face overlap, then the larger is kept, in the input order', () => {
    const small = face(10, 10, 50, 50, 0.9);
    const large = face(0, 0, 80, 80, 0.9);
    const other = face(300, 0, 80, 80, 0.95);

    expect(oneDetectionPerFace([small, other, large])).toEqual([other, large]);
  });

  it('when there are no faces, then there are none', () => {
    expect(oneDetectionPerFace([])).toEqual([]);
  });
});
