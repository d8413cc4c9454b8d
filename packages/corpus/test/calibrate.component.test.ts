import { SCREEN_FEATURE_NAMES, type ScreenFeatureName, type ScreenModel } from '@idv/verification/tooling';
import {
  chooseLimit,
  detectionAtFalseAlarms,
  fitScreenModel,
  mostCautious,
  flags,
  modelSource,
  rates,
  type CalibrationReport,
  type ScreenGrid,
} from '../src/calibrate';
import type { CalibrationRow } from '../src/calibration-worker';

let documents = 0;

/** A calibration row with every feature at a neutral value unless overridden (a small factory); one document each. */
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
  documents += 1;
  return {
    id: `row-${documents}`,
    seed: 1,
    index: documents,
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
  const options = { maxFalseAlarm: 0.02, periodicShare: 0.005, minDetection: 0.9, folds: 5 };
  // A small grid keeps the test fast; the calibration's own grid has every set, gate and penalty.
  const grid: ScreenGrid = { featureSets: ['colour_and_tone', 'with_periodic'], sharpness: [0, 2], lambdas: [0.01] };

  it('when screens have raised blacks and prints a warm cast that originals lack, then the fitted model separates them', () => {
    const originals = Array.from({ length: 200 }, (_, index) =>
      buildRow({ features: { white_cast: spread(index) - 0.5, black_level: spread(index + 7) } }),
    );
    const screens = Array.from({ length: 40 }, (_, index) =>
      buildRow({ recapture: 'screen', features: { black_level: 2 + spread(index) } }),
    );
    const prints = Array.from({ length: 40 }, (_, index) =>
      buildRow({ recapture: 'print', features: { white_cast: -2 - spread(index) } }),
    );
    const rows = [...originals, ...screens, ...prints];
    const { model, met, cv } = fitScreenModel(rows, options, grid);
    expect(met).toBe(true);
    // Out of fold, as on unseen photos, and on the rows themselves.
    for (const result of [cv, rates(rows, model)]) {
      expect(result.detection_rate).toBeGreaterThanOrEqual(0.9);
      expect(result.false_alarm_rate).toBeLessThanOrEqual(0.02);
    }
    expect(model.features.white_cast.weight).toBeLessThan(0);
    expect(model.features.black_level.weight).toBeGreaterThan(0);
  });

  it('when the held-out curve is read, then each point lets through its share of judged originals and never an unjudged photo', () => {
    // A model that scores by the comb-free peak alone: the scores' order is the values' order.
    const model: ScreenModel = {
      periodicThreshold: 1,
      minLogBlur: 2,
      bias: 0,
      threshold: 0.5,
      features: Object.fromEntries(
        SCREEN_FEATURE_NAMES.map((name) => [name, { mean: 0, scale: 1, weight: name === 'luma_periodic' ? 1 : 0 }]),
      ) as ScreenModel['features'],
    };
    const judged = { log_blur: 3 };
    const blurred = { log_blur: 1 };
    const originals = Array.from({ length: 100 }, (_, index) =>
      buildRow({ features: { ...judged, luma_periodic: index / 100 } }),
    );
    originals.push(buildRow({ features: { ...blurred, luma_periodic: 5 } }));
    const recaptures = [1.5, 1.2, 0.985, 0.975, 0.5].map((value) =>
      buildRow({ recapture: 'print', features: { ...judged, luma_periodic: value } }),
    );
    recaptures.push(buildRow({ recapture: 'screen', features: { ...blurred, luma_periodic: 5 } }));
    // 101 originals: 1% lets one through (0.99), 2% two (0.99, 0.98).
    expect(detectionAtFalseAlarms([...originals, ...recaptures], model, [0.01, 0.02])).toEqual([
      { false_alarm_rate: 0.01, false_alarms: 1, detected: 3, recaptures: 6 },
      { false_alarm_rate: 0.02, false_alarms: 2, detected: 4, recaptures: 6 },
    ]);
  });

  it('when the model is printed for thresholds.ts, then every field it chose is there and the periodic level is not rounded below itself', () => {
    const model: ScreenModel = {
      periodicThreshold: 0.6750462960119633,
      minLogBlur: 2.1,
      bias: -1.403689,
      threshold: 0.4717507,
      features: Object.fromEntries(
        SCREEN_FEATURE_NAMES.map((name) => [name, { mean: 0, scale: 1, weight: name === 'glare' ? -1.0012 : 0 }]),
      ) as ScreenModel['features'],
    };
    const source = modelSource({ model } as CalibrationReport);
    expect(source).toContain('  periodicThreshold: 0.675047,\n  minLogBlur: 2.1,\n  bias: -1.40369,\n  features: {\n');
    expect(source).toContain('    glare: { mean: 0, scale: 1, weight: -1.0012 },');
    expect(source.endsWith('  threshold: 0.471751,')).toBe(true);
  });

  it('when genuine photos show a comb-free periodic peak, then it is reported and the colour and tone decide', () => {
    const originals = Array.from({ length: 200 }, (_, index) =>
      buildRow({ features: { white_cast: spread(index) - 0.5, luma_periodic: index % 10 === 0 ? 1 + spread(index) : 0 } }),
    );
    const prints = Array.from({ length: 40 }, (_, index) =>
      buildRow({ recapture: 'print', features: { white_cast: -2 - spread(index), luma_periodic: spread(index) } }),
    );
    const rows = [...originals, ...prints];
    const { model } = fitScreenModel(rows, options, grid);
    const withPeak = originals.filter((row) => row.quality.features.luma_periodic! > 0);
    expect(withPeak.some((row) => row.quality.features.luma_periodic! >= model.periodicThreshold)).toBe(true);
    expect(withPeak.filter((row) => flags(row, model))).toEqual([]);
    expect(prints.filter((row) => flags(row, model)).length).toBeGreaterThanOrEqual(36);
  });

  it('when blurred originals look like prints by colour, then the model does not flag them', () => {
    const originals = [
      ...Array.from({ length: 200 }, (_, index) => buildRow({ features: { white_cast: spread(index) - 0.5 } })),
      ...Array.from({ length: 30 }, (_, index) =>
        buildRow({ profile: 'blur', features: { white_cast: -2 - spread(index), log_blur: 1.2 + spread(index) / 2 } }),
      ),
    ];
    const prints = Array.from({ length: 40 }, (_, index) =>
      buildRow({ recapture: 'print', features: { white_cast: -2 - spread(index) } }),
    );
    const rows = [...originals, ...prints];
    const { model, cv } = fitScreenModel(rows, options, grid);
    expect(cv.false_alarm_rate).toBeLessThanOrEqual(0.02);
    expect(originals.filter((row) => row.profile === 'blur' && flags(row, model))).toEqual([]);
    expect(rates(rows, model).detection_rate).toBeGreaterThanOrEqual(0.9);
  });

  it('when originals and recaptures overlap, then the threshold detects all that the false-alarm limit allows', () => {
    // One feature, the classes overlapping over a wide band: the threshold is a trade-off.
    const originals = Array.from({ length: 300 }, (_, index) => buildRow({ features: { white_cast: -2 * spread(index) } }));
    const prints = Array.from({ length: 60 }, (_, index) =>
      buildRow({ recapture: 'print', features: { white_cast: -1.85 - 1.85 * spread(index + 3) } }),
    );
    const { cv, candidates } = fitScreenModel([...originals, ...prints], options, grid);
    expect(cv.false_alarm_rate).toBeLessThanOrEqual(0.02);
    expect(cv.false_alarms).toBeGreaterThan(0);
    // At the limit, not short of it: a threshold halfway to the 90% detection score would detect fewer.
    for (const candidate of candidates) expect(candidate.cv.detection_rate).toBeCloseTo(candidate.cv_detection_at_limit, 10);
  });

  it('when candidates detect within one standard error of the best, then the most cautious of them is chosen', () => {
    const candidate = (min_log_blur: number, lambda: number, detection: number, atHalf = 0.9) => ({
      min_log_blur,
      lambda,
      cv_detection_at_limit: detection,
      cv_detection_at_half_limit: atHalf,
    });
    // The 2026-11-28 calibration: 259 and 257 of 267 recaptures are one standard error (1.0 point) apart.
    const best = candidate(2, 0.01, 259 / 267);
    const cautious = candidate(2.1, 0.01, 257 / 267);
    const penalised = candidate(2.1, 0.03, 253 / 267);
    const blind = candidate(2.6, 0.3, 0.5);
    expect(mostCautious([best, cautious, penalised, blind], 267)).toBe(cautious);
    // With ten times the recaptures, the same two differ by more than the error: the best is taken.
    expect(mostCautious([best, cautious, penalised, blind], 2670)).toBe(best);
    // Among equally cautious ones, the stronger penalty, then the better detection at half the limit.
    const halfBetter = candidate(2.1, 0.01, 257 / 267, 0.95);
    expect(mostCautious([best, cautious, halfBetter], 267)).toBe(halfBetter);
    expect(mostCautious([], 267)).toBeNull();
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
