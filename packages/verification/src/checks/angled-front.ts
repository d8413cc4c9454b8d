import type { CardOutline } from '../pipeline/card-outline';
import { signatureDistance } from '../pipeline/perceptual-hash';
import { outlineChange } from './outline-change';

/**
 * Whether the angled front (`front_angle`) shows the card held at another angle than the front, or is
 * the front's photo again. The angled photo is there to show a physical card in 3D: a copy of the front
 * (the same file, or it re-encoded, rescaled, brightened) or a second photo taken from the same angle
 * shows nothing the front did not.
 *
 * - A copy: the two photos' likeness signatures are nearer than `maxCopyDistance`.
 * - Not tilted: both photos show the card's outline and its shape changed by less than
 *   `minOutlineChange` (turning, moving, rescaling and cropping change nothing; tilting the card does).
 *
 * Where the outline does not show on one of them (a card on a surface of its own colour, cut by the
 * frame) only the copy is judged.
 */
export interface AngledFrontLimits {
  maxCopyDistance: number;
  minOutlineChange: number;
}

/**
 * Chosen on the corpus, 2026-11-29, by `node packages/corpus/dist/cli.js calibrate-angle --count 20`
 * (docs/documents.md "The angled front" has the tables): seed 4004 chooses, seed 5005 is held out, 20
 * documents each of dni_2012_9, dni_2009 and passport_arg at 1400 × 1000, each front (`clean`) paired
 * with the same card at an angle (`perspective`), flat again (`tilt`, `rotated`) and copies of itself.
 * Each limit halfway (geometrically) between the copies' largest value and the smallest of the angled
 * fronts tilted 10° or more from the front.
 * - `maxCopyDistance`: re-encoded (JPEG 40–70, PNG) and rescaled (×0.5, ×1.5) copies at most 0.0064 from
 *   their front (held out 0.0074: 600/600 refused); angled fronts tilted 10°+ at least 0.026. A 10%
 *   brightened copy reaches 0.0246 (held out 0.0435): 52/60 and 54/60 refused by it, the rest not (their
 *   outline did not show). Another card of the layout: 0.0748 or more.
 * - `minOutlineChange`: every copy (cropped, turned by 2° or 90° included) and second flat photo at most
 *   0.0030 (held out 0.0028); angled fronts tilted 10°+ at least 0.0158 (held out 0.0145). The outline
 *   showed on 42/60 and 51/60 fronts (not on the corpus's white table).
 * Angled fronts refused: 1/60 (seed 4004) and 3/60 (held out), each tilted less than 7.1° from the
 * front; none of those tilted 10° or more.
 */
export const ANGLED_FRONT_LIMITS: AngledFrontLimits = {
  maxCopyDistance: 0.0129,
  minOutlineChange: 0.0069,
};

export type AngledFrontVerdict =
  /** The card is seen at another angle. */
  | 'tilted'
  /** The front's photo again (or nearly). */
  | 'copy'
  /** Another photo, from the same angle. */
  | 'not_tilted'
  /** Not a copy; whether it was tilted could not be seen (no outline on one of the photos). */
  | 'unknown';

/** What a side carries for this judgement (`SideReading`'s fields; null where they were not measured). */
export interface AngledFrontEvidence {
  image_signature?: string | null;
  card_outline?: CardOutline | null;
}

export interface AngledFrontJudgement {
  verdict: AngledFrontVerdict;
  /** `signatureDistance` between the two photos, when both have a signature. */
  distance: number | null;
  /** `outlineChange` between the two outlines, when both were found. */
  outline_change: number | null;
}

const rounded = (value: number) => Math.round(value * 10_000) / 10_000;

export function judgeAngledFront(
  front: AngledFrontEvidence,
  angled: AngledFrontEvidence,
  limits: AngledFrontLimits = ANGLED_FRONT_LIMITS,
): AngledFrontJudgement {
  const distance =
    front.image_signature && angled.image_signature ? signatureDistance(front.image_signature, angled.image_signature) : null;
  const change =
    front.card_outline && angled.card_outline ? outlineChange(front.card_outline.corners, angled.card_outline.corners) : null;
  const evidence = {
    distance: distance === null ? null : rounded(distance),
    outline_change: change === null ? null : rounded(change),
  };
  if (distance !== null && distance < limits.maxCopyDistance) return { verdict: 'copy', ...evidence };
  if (change !== null) return { verdict: change < limits.minOutlineChange ? 'not_tilted' : 'tilted', ...evidence };
  return { verdict: 'unknown', ...evidence };
}
