import { SCREEN_FEATURE_NAMES, type ScreenFeatureName } from '@idv/verification';
import { chooseLimit, fitScreenModel, flags, rates } from '../src/calibrate';
import type { CalibrationRow } from '../src/calibration-worker';

/** A calibration row with every feature at a neutral value unless overridden (a small factory). */
function buildRow(overrides: {
  recapture?: 'screen' | 'print' | null;
  profile?: CalibrationRow['profile'];
  features?: Partial<Record<ScreenFeatureName, number>>;
  blur?: number;
  readable?: boolean | null;
}): CalibrationRow {
  const features = Object.fromEntries(SCREEN_FEATURE_NAMES.map((name) => [name, 0])) as Record<string, number>;
  features.log_blur = 3;
  Object.assign(features, overrides.features ?? {});
  const readable = overrides.readable ?? null;
  return {
    id: `row-${Math.random()}`,
    seed: 1,
    index: 0,
    variant: 'dni_2012_8',
    side: 'front',
    profile: overrides.profile ?? (overrides.recapture ? overrides.recapture : 'clean'),
    recapture: overrides.recapture ?? null,
    degradation: {
      blur_sigma: 0.5,
      jpeg_quality: 90,
      gain: 1,
      glare_strength: null,
      glare_over: [],
      pixel_pitch_px: null,
      halftone_period_px: null,
    },
    quality: { blur: overrides.blur ?? 1000, glare: 0, brightness: 150, ms: 50, features },
    read:
      readable === null ? null : { barcode_expected: true, barcode_ok: readable, mrz_expected: false, mrz_ok: false, ms: 100 },
  };
}

// A deterministic spread of values in [0, 1) (no Math.random in what the assertions depend on).
const spread = (index: number): number => (index * 0.618034) % 1;

describe('calibration', () => {
  it('when recaptures have periodic peaks or a colour cast that originals lack, then the fitted model separates them', () => {
    const originals = Array.from({ length: 200 }, (_, index) =>
      buildRow({ features: { white_cast: spread(index) - 0.5, luma_periodic: 0 } }),
    );
    const screens = Array.from({ length: 40 }, (_, index) =>
      buildRow({ recapture: 'screen', features: { luma_periodic: 1 + spread(index) } }),
    );
    const prints = Array.from({ length: 40 }, (_, index) =>
      buildRow({ recapture: 'print', features: { white_cast: -2 - spread(index) } }),
    );
    const rows = [...originals, ...screens, ...prints];
    const { model, met } = fitScreenModel(rows, { maxFalseAlarm: 0.02, periodicFalseAlarm: 0.005, minDetection: 0.9 });
    const result = rates(rows, model);
    expect(met).toBe(true);
    expect(result.detection_rate).toBeGreaterThanOrEqual(0.9);
    expect(result.false_alarm_rate).toBeLessThanOrEqual(0.02);
    // The periodic screens are caught by the peak alone; the prints by the colour model.
    expect(screens.every((row) => row.quality.features.luma_periodic! >= model.periodicThreshold)).toBe(true);
    expect(model.features.white_cast.weight).toBeLessThan(0);
    expect(prints.filter((row) => flags(row, model)).length).toBeGreaterThanOrEqual(36);
  });

  it('when a blur limit is chosen, then it flags at most the allowed share of readable photos', () => {
    const readable = Array.from({ length: 100 }, (_, index) => buildRow({ blur: 100 + index * 10, readable: true }));
    const unreadable = Array.from({ length: 20 }, (_, index) =>
      buildRow({ profile: 'blur', blur: 20 + index * 4, readable: false }),
    );
    const limit = chooseLimit('blur', 'below', 'blur', [...readable, ...unreadable], [...readable, ...unreadable], 0.02, [
      0,
      100,
      1000,
      Infinity,
    ]);
    const [flagged, total] = limit.flagged_readable;
    expect(flagged / total).toBeLessThanOrEqual(0.02);
    expect(limit.caught_unreadable[0]).toBe(20);
    expect(limit.curve[0]).toMatchObject({ from: 0, to: 100, read_rate: 0 });
  });
});
