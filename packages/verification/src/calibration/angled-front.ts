/**
 * The angled front's judgement (`checks/angled-front.ts`, `judgeAngledFront`): whether the `front_angle`
 * photo is a copy of the front, or the card seen from the same angle. `calibrate-angle` in packages/corpus
 * chooses `ANGLED_FRONT_LIMITS`; the likeness signature's size and the card outline's search
 * (`card-outline.ts` beside this file) are what it measured with.
 */

/**
 * The likeness signature's size (`pipeline/perceptual-hash.ts`, `perceptualSignature`), chosen 2026-11-29
 * (commit 673bdef): 64 × 48 keeps a tilted card's print from lining up with a flat photo of it; 32 × 24
 * did not (corpus seed 4004: a genuine angled front 0.0094 from its front, a half-size copy 0.0095).
 */
export const SIGNATURE_WIDTH = 64;
export const SIGNATURE_HEIGHT = 48;

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
