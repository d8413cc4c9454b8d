import type { ScreenFeatureName } from './screen';

/**
 * Thresholds and the recapture model, all fitted on the synthetic corpus (packages/corpus); never set by
 * hand. The recapture model: `node packages/corpus/dist/cli.js calibrate --count 800 --recapture-only
 * --held-out-seed 3003` (2026-11-27), calibration split seed 1001, held out seeds 2002 and 3003, 800
 * documents each (1,335 photos: 1,068 originals under every degradation profile, 134 screen and 133
 * print recaptures). The capture limits (`QUALITY_LIMITS`): `calibrate --count 400` (2026-11-23).
 * docs/documents.md "Screen and print recapture" has the full tables; the reports are
 * bench/results/calibration/report-*.json.
 */
export interface ScreenModel {
  /**
   * A comb-free luma peak at least this prominent (decades) is reported as periodic evidence. It decides
   * nothing: genuine fine print resampled by a camera shows one too (docs/documents.md).
   */
  periodicThreshold: number;
  /** The model judges photos at least this sharp: log10(1 + variance of the Laplacian). */
  minLogBlur: number;
  bias: number;
  features: Record<ScreenFeatureName, { mean: number; scale: number; weight: number }>;
  /** Score at or above which a judged photo is a recapture. */
  threshold: number;
}

/**
 * Calibrated 2026-11-27, the spectra averaged over twelve tiles spread over the photo (four before), for
 * ≥ 90% detection at ≤ 2% false alarms: the threshold at the out-of-fold 2% false-alarm limit, moved up
 * into the gap before the lowest recapture detected there. Candidates compared out of fold on seed 1001
 * (5 folds); chosen: luma peaks, the comb-free peak, colour and tone and the exposure- and
 * noise-indifferent measures, gate 2.0, λ 0.01. Out of fold 255/267 (95.5%) at 20/1068 (1.9%).
 * Held out: seed 2002 243/267 (91.0%) at 12/1068 (1.1%); seed 3003, generated after the model was chosen
 * (first measured at the bare limit, 0.478: 26/1068), 247/267 (92.5%; screens 130/134, prints 117/133)
 * at 25/1068 (2.3%, 15 of them blurred photos); both together 490/534 (91.8%) at 37/2136 (1.7%). Every
 * calibration original's comb-free peak is 0 but one, so any comb-free peak is reported as periodic
 * evidence; alone it decides nothing.
 */
export const SCREEN_MODEL: ScreenModel = {
  periodicThreshold: 1e-9,
  minLogBlur: 2,
  bias: -1.29836,
  features: {
    luma_peak_prominence: { mean: 0.649596, scale: 0.393448, weight: 1.67956 },
    luma_periodic: { mean: 0.128759, scale: 0.413854, weight: 1.2377 },
    chroma_peak_prominence: { mean: 0, scale: 1, weight: 0 },
    chroma_periodic: { mean: 0, scale: 1, weight: 0 },
    chroma_low_ratio: { mean: -1.15535, scale: 0.645703, weight: -0.142319 },
    chroma_mid_ratio: { mean: -1.52333, scale: 0.751286, weight: 0.823524 },
    saturation: { mean: 0.182263, scale: 0.11177, weight: -0.313713 },
    black_level: { mean: 41.1369, scale: 32.3071, weight: -0.222082 },
    white_level: { mean: 221.344, scale: 53.0082, weight: 0.395589 },
    white_cast: { mean: 0.0161086, scale: 0.0767078, weight: -0.748239 },
    chroma_detail: { mean: 0.153991, scale: 0.138884, weight: 1.43799 },
    edge_chroma: { mean: 0.0733331, scale: 0.0708488, weight: -0.0235276 },
    black_ratio: { mean: 0.17654, scale: 0.130758, weight: 0.0883866 },
    luma_peak_count: { mean: 0.604199, scale: 2.0231, weight: 0.376692 },
    luma_high_mid_ratio: { mean: -1.47313, scale: 0.584233, weight: 0.504864 },
    glare: { mean: 0.0298505, scale: 0.0571149, weight: -0.933578 },
    log_blur: { mean: 2.9741, scale: 0.37896, weight: -0.441926 },
  },
  threshold: 0.483675,
};

/**
 * Capture problems a person can fix, each limit chosen to flag at most 2% of the photos whose barcode
 * and MRZ the service's own `readSide` read (calibration seed 1001; figures on held-out seed 2002). They
 * depend on the reader: recalibrate when it changes (delete bench/results/calibration/reads-*).
 */
export const QUALITY_LIMITS = {
  /**
   * "La foto está movida": variance of the Laplacian at 800 px below 93.6. Flags 2/125 readable photos
   * (held-out 0/134) and catches 27/50 of the blur profile's unreadable ones (held-out). Read rate by
   * this measure: 7% below 100, 26% at 100–200, 42% at 200–400, 62% at 400–800, 75% at 800–1600.
   */
  blurBelow: 93.64,
  /**
   * "Hay un reflejo sobre los datos": more than 26.4% of the image washed out. The share of washed-out
   * pixels over the whole photo did not predict an unreadable barcode or MRZ in the corpus (read rates
   * 49–80% at every level), so the limit only keeps the message off readable photos (3/125, held-out
   * 1/134) and catches almost nothing (held-out 0/17): glare over the data needs the data's place.
   */
  glareAbove: 0.2637,
  /**
   * "La foto está muy oscura": mean luma below 20.1. Flags 2/125 readable photos (held-out 1/134),
   * catches 8/24 of the low-light profile's unreadable ones (held-out); the reader normalises contrast,
   * so it reads 39% of photos even below 40.
   */
  brightnessBelow: 20.09,
} as const;
