import { ANGLED_FRONT_LIMITS, type AngledFrontLimits } from '../calibration/angled-front';
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
