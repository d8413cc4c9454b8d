/**
 * The port through which the pipeline asks about image quality and screen recapture. The assessment
 * itself (blur, glare, brightness, moiré) is written in `src/quality/` by its own author; until it is
 * wired in, `assessQuality` below says nothing (every score null, nothing detected), so no capture is
 * rejected for quality. Wiring it in is replacing the body of `assessQuality` with a call to the quality
 * module and mapping its result onto `QualityAssessment`.
 */
export type QualityProblem = 'blurry' | 'glare' | 'too_dark';

export interface QualityAssessment {
  /** Higher is sharper; null when not measured. */
  blur: number | null;
  /** Share of the image washed out by reflections; null when not measured. */
  glare: number | null;
  /** Mean brightness 0–255; null when not measured. */
  brightness: number | null;
  screen: { score: number | null; detected: boolean };
  /** What the quality module, with its calibrated thresholds, says is wrong with the capture. */
  problems: QualityProblem[];
  /** False until the quality module is wired in: verdicts then say the screen check was not run. */
  assessed: boolean;
}

export interface QualityInput {
  jpeg: Buffer;
  width: number;
  height: number;
}

export type QualityAssessor = (image: QualityInput) => Promise<QualityAssessment>;

export const assessQuality: QualityAssessor = () =>
  Promise.resolve({
    blur: null,
    glare: null,
    brightness: null,
    screen: { score: null, detected: false },
    problems: [],
    assessed: false,
  });
