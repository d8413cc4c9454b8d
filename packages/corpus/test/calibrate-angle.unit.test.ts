import { applyAngleLimits, chooseAngleLimits, type AnglePair } from '../src/calibrate-angle';

const pair = (kind: string, distance: number, outline: number | null, tilt = 0): AnglePair => ({
  document: `d-${kind}-${distance}`,
  variant: 'dni_2012_9',
  kind,
  distance,
  hash_distance: 0,
  outline_change: outline,
  tilt_change_deg: tilt,
});

describe('the angled front limits', () => {
  const pairs = [
    pair('perspective', 0.04, 0.02, 15),
    pair('perspective', 0.09, 0.05, 25),
    // Tilted too little to count: it neither sets a limit nor is kept.
    pair('perspective', 0.005, 0.004, 5),
    pair('tilt', 0.3, 0.0025),
    pair('copy:jpeg_q70', 0.0001, 0.0004),
    pair('copy:scale_1_5', 0.0064, 0.0001),
    // An edit: reported, not chosen on, for the likeness.
    pair('copy:brighter_10', 0.03, 0.001),
  ];

  test('when limits are chosen, then each is halfway (geometrically) between the copies and the angled fronts tilted 10° or more', () => {
    const limits = chooseAngleLimits({ pairs });

    expect(limits.maxCopyDistance).toBeCloseTo(Math.sqrt(0.0064 * 0.04), 4);
    expect(limits.minOutlineChange).toBeCloseTo(Math.sqrt(0.0025 * 0.02), 4);
  });

  test('when the limits are applied, then copies and flat photos are refused and the little-tilted front is named', () => {
    const applied = applyAngleLimits({ pairs }, chooseAngleLimits({ pairs }));

    expect(applied.refused['copy:jpeg_q70']).toEqual([1, 0, 1, 1]);
    expect(applied.refused['copy:brighter_10']).toEqual([0, 1, 1, 1]);
    expect(applied.refused.tilt).toEqual([0, 1, 1, 1]);
    expect(applied.genuine_refused.map((refused) => refused.tilt_change_deg)).toEqual([5]);
  });
});
