/** The recapture detector's inputs, by name (screen.ts measures them, thresholds.ts weighs them). */
export const SCREEN_FEATURE_NAMES = [
  'luma_peak_prominence',
  'luma_periodic',
  'chroma_peak_prominence',
  'chroma_periodic',
  'chroma_low_ratio',
  'chroma_mid_ratio',
  'chroma_high_ratio',
  'magenta_peak_prominence',
  'magenta_low_ratio',
  'magenta_mid_ratio',
  'magenta_high_ratio',
  'saturation',
  'black_level',
  'white_level',
  'white_cast',
  'chroma_detail',
  'magenta_detail',
  'edge_chroma',
  'black_ratio',
  'luma_peak_count',
  'luma_high_mid_ratio',
  'glare',
  'log_blur',
] as const;
export type ScreenFeatureName = (typeof SCREEN_FEATURE_NAMES)[number];
/** The model's possible inputs (the calibration gives weight 0 to those it leaves out). */
export type ScreenFeatures = Record<ScreenFeatureName, number>;
