import { spoofFeatures } from '../src/spoof';

// Small synthetic frames (192×192, the face box the middle 128 px): each replay cue is checked against
// the change it is meant to see, on the same base image.
const SIZE = 192;
const BOX = { x: 32, y: 32, width: 128, height: 128 };

/** A smooth shaded blob with mild deterministic noise: no periodic structure, little colour detail. */
function baseFrame(): Float32Array {
  let state = 12345;
  const noise = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
  const data = new Float32Array(SIZE * SIZE * 3);
  for (let y = 0; y < SIZE; y += 1) {
    for (let x = 0; x < SIZE; x += 1) {
      const distance = Math.hypot(x - SIZE / 2, y - SIZE / 2) / (SIZE / 2);
      const shade = 40 + 170 * Math.max(0, 1 - distance * distance) + 6 * noise();
      const offset = (y * SIZE + x) * 3;
      data[offset] = shade * 1.05;
      data[offset + 1] = shade * 0.85;
      data[offset + 2] = shade * 0.75;
    }
  }
  return data;
}

function toBytes(data: Float32Array): Uint8Array {
  return Uint8Array.from(data, (value) => Math.min(255, Math.max(0, Math.round(value))));
}

function features(data: Float32Array) {
  return spoofFeatures(toBytes(data), SIZE, SIZE, BOX);
}

describe('spoofFeatures', () => {
  const base = features(baseFrame());

  it('when a fine grating (a pixel grid aliased into moiré) is added, then the periodic peak rises', () => {
    const data = baseFrame();
    const angle = (20 * Math.PI) / 180;
    for (let y = 0; y < SIZE; y += 1)
      for (let x = 0; x < SIZE; x += 1) {
        const wave = 10 * Math.cos((2 * Math.PI * (x * Math.cos(angle) + y * Math.sin(angle))) / 3.3);
        for (let channel = 0; channel < 3; channel += 1) data[(y * SIZE + x) * 3 + channel]! += wave;
      }

    expect(features(data).periodicPeak).toBeGreaterThan(base.periodicPeak + 0.5);
  });

  it('when red, green and blue stripes (a screen’s sub-pixels) show, then the colour detail rises', () => {
    const data = baseFrame();
    for (let y = 0; y < SIZE; y += 1) for (let x = 0; x < SIZE; x += 1) data[(y * SIZE + x) * 3 + (x % 3)]! += 25;

    expect(features(data).chromaDetail).toBeGreaterThan(2 * base.chromaDetail);
  });

  it('when the blacks are lifted (a screen’s leaking black, glare), then the black lift rises', () => {
    const data = baseFrame().map((value) => 45 + 0.8 * value);

    expect(features(data).blackLift).toBeGreaterThan(base.blackLift + 0.1);
  });

  it('when the frame is blurred (an image of an image), then fine detail falls against mid detail', () => {
    const source = baseFrame();
    const data = new Float32Array(source.length);
    for (let y = 0; y < SIZE; y += 1)
      for (let x = 0; x < SIZE; x += 1)
        for (let channel = 0; channel < 3; channel += 1) {
          let sum = 0;
          let count = 0;
          for (let dy = -2; dy <= 2; dy += 1)
            for (let dx = -2; dx <= 2; dx += 1) {
              const yy = Math.min(SIZE - 1, Math.max(0, y + dy));
              const xx = Math.min(SIZE - 1, Math.max(0, x + dx));
              sum += source[(yy * SIZE + xx) * 3 + channel] ?? 0;
              count += 1;
            }
          data[(y * SIZE + x) * 3 + channel] = sum / count;
        }

    expect(features(data).fineToMid).toBeLessThan(0.7 * base.fineToMid);
  });

  it('when a dark band with a straight edge crosses the frame near a side (a screen’s bezel), then the straight edge rises', () => {
    const data = baseFrame();
    for (let y = 0; y < SIZE; y += 1)
      for (let x = 0; x < SIZE; x += 1)
        if (y < 20 + Math.round(0.05 * x))
          for (let channel = 0; channel < 3; channel += 1) data[(y * SIZE + x) * 3 + channel] = 5;

    expect(features(data).straightEdge).toBeGreaterThan(2 * base.straightEdge);
  });

  /** The base frame with everything outside `inside(x, y)` painted as dark bezel. */
  function framedBy(inside: (x: number, y: number) => boolean): Float32Array {
    const data = baseFrame();
    for (let y = 0; y < SIZE; y += 1)
      for (let x = 0; x < SIZE; x += 1)
        if (!inside(x, y)) for (let channel = 0; channel < 3; channel += 1) data[(y * SIZE + x) * 3 + channel] = 5;
    return data;
  }

  it('when a tilted dark bezel frames the picture on every side (a screen held before the camera), then the outline rises far above the base', () => {
    // Turned 4°: the screen's sides are not the frame's.
    const tilt = Math.tan((4 * Math.PI) / 180);
    const screen = features(
      framedBy((x, y) => {
        const u = x - SIZE / 2 + tilt * (y - SIZE / 2);
        const v = y - SIZE / 2 - tilt * (x - SIZE / 2);
        return Math.abs(u) < 72 && Math.abs(v) < 76;
      }),
    );

    expect(screen.outline).toBeGreaterThan(3 * base.outline);
    expect(screen.outline).toBeGreaterThan(0.5 * screen.straightEdge);
  });

  it('when straight edges line only two sides (a doorway behind the person), then the straight edge rises but the outline does not', () => {
    const doorway = features(framedBy((x) => x > 24 && x < SIZE - 24));

    expect(doorway.straightEdge).toBeGreaterThan(2 * base.straightEdge);
    expect(doorway.outline).toBeLessThan(1.5 * base.outline + 0.1);
  });

  it('when the face box lies partly outside the frame, then the features are still finite', () => {
    const result = spoofFeatures(toBytes(baseFrame()), SIZE, SIZE, { x: -40, y: 150, width: 128, height: 128 });

    for (const value of Object.values(result)) expect(Number.isFinite(value)).toBe(true);
  });
});
