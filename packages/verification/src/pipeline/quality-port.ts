import { assessQuality as assessImageQuality, type QualityProblem } from '../quality';

/**
 * What the pipeline needs to know about a capture's quality: the calibrated measures of `src/quality/`
 * (blur, glare, brightness, screen or print recapture), reduced to what a side's reading keeps.
 */
export type { QualityProblem };

export interface QualityAssessment {
  /** Variance of the Laplacian at 800 px on the long side: higher is sharper. */
  blur: number | null;
  /** Share of the image washed out by reflections. */
  glare: number | null;
  /** Mean brightness 0–255. */
  brightness: number | null;
  /**
   * The recapture verdict. `judged` is false when the photo was too blurred for the colour-and-tone
   * model (a periodic peak does not change that: it is reported, never decides): the screen check is
   * then inconclusive rather than passed.
   */
  screen: { score: number | null; detected: boolean; judged: boolean; evidence: 'periodic' | 'colour' | null };
  /** What the calibrated limits say is wrong with the capture, in the order a person should fix it. */
  problems: QualityProblem[];
  /** False only for a reading that never got as far as decoding the image. */
  assessed: boolean;
}

export interface QualityInput {
  jpeg: Buffer;
  width: number;
  height: number;
}

export type QualityAssessor = (image: QualityInput) => Promise<QualityAssessment>;

export const assessQuality: QualityAssessor = async (image) => {
  const report = await assessImageQuality(image.jpeg);
  return {
    blur: round(report.blur, 1),
    glare: round(report.glare, 4),
    brightness: round(report.brightness, 1),
    screen: {
      score: round(report.screen.score, 4),
      detected: report.screen.detected,
      judged: report.screen.judged,
      evidence: report.screen.evidence,
    },
    problems: report.problems,
    assessed: true,
  };
};

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
