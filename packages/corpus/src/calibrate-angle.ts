import sharp from 'sharp';
import {
  findCardOutline,
  hashDistance,
  outlineChange,
  perceptualHash,
  perceptualSignature,
  signatureDistance,
} from '@idv/verification/tooling';
import type { DocumentVariant } from './documents';
import { DEFAULT_GENERATE_OPTIONS, generateDocumentImages, type DegradationProfile, type GenerateOptions } from './generate';

/**
 * Calibration of the angled front's checks (packages/verification/src/checks/angled-front.ts) on the
 * corpus: for each document, its front photographed as a person would (`clean`), the same card again
 * at an angle (`perspective`: the genuine angled front), again flat but turned in the plane (`tilt`,
 * `rotated`: a second photo without tilting it), and the `clean` photo itself copied the ways someone
 * sending it twice would (re-encoded, rescaled, lightly cropped, brightened, turned). For every pair
 * with the front: the perceptual hashes' distance and the change of the card's outline.
 */
export interface AngleCalibrationOptions {
  seed: number;
  count: number;
  variants: readonly DocumentVariant[];
  width: number;
  height: number;
  log: (line: string) => void;
}

export const DEFAULT_ANGLE_CALIBRATION: Omit<AngleCalibrationOptions, 'log'> = {
  seed: 4004,
  count: 20,
  variants: ['dni_2012_9', 'dni_2009', 'passport_arg'],
  width: 1400,
  height: 1000,
};

/** The copies of a photo someone could send instead of a second photo, and what each does. */
export const COPIES: Record<string, (image: Buffer) => Promise<Buffer>> = {
  jpeg_q70: (image) => sharp(image).jpeg({ quality: 70 }).toBuffer(),
  jpeg_q40: (image) => sharp(image).jpeg({ quality: 40 }).toBuffer(),
  png: (image) => sharp(image).png().toBuffer(),
  scale_0_5: async (image) =>
    sharp(image)
      .resize({ width: await widthTimes(image, 0.5) })
      .jpeg({ quality: 85 })
      .toBuffer(),
  scale_1_5: async (image) =>
    sharp(image)
      .resize({ width: await widthTimes(image, 1.5) })
      .jpeg({ quality: 85 })
      .toBuffer(),
  crop_3_all: (image) => crop(image, { left: 0.03, top: 0.03, right: 0.03, bottom: 0.03 }),
  crop_6_top_left: (image) => crop(image, { left: 0.06, top: 0.06, right: 0, bottom: 0 }),
  crop_4_scale_0_75: async (image) => {
    const cropped = await crop(image, { left: 0.04, top: 0.02, right: 0.02, bottom: 0.04 });
    return sharp(cropped)
      .resize({ width: await widthTimes(cropped, 0.75) })
      .jpeg({ quality: 75 })
      .toBuffer();
  },
  brighter_10: (image) => sharp(image).linear(1.1, 0).jpeg({ quality: 90 }).toBuffer(),
  turned_2: async (image) => crop(await sharp(image).rotate(2, { background: '#808080' }).toBuffer(), edges(0.04)),
  turned_90: (image) => sharp(image).rotate(90).jpeg({ quality: 90 }).toBuffer(),
};

/**
 * The copies the likeness limit is chosen on: the photo itself re-encoded or rescaled, as an upload or a
 * messaging app does it. Crops and turns move the picture (the outline's to judge), and a brightened
 * copy is an edit: both are reported, not chosen on.
 */
export const FRAMING_COPIES = ['jpeg_q70', 'jpeg_q40', 'png', 'scale_0_5', 'scale_1_5'];

async function widthTimes(image: Buffer, factor: number): Promise<number> {
  const { width = 1 } = await sharp(image).metadata();
  return Math.max(1, Math.round(width * factor));
}

const edges = (share: number) => ({ left: share, top: share, right: share, bottom: share });

async function crop(image: Buffer, share: { left: number; top: number; right: number; bottom: number }): Promise<Buffer> {
  const { width = 1, height = 1 } = await sharp(image).metadata();
  const left = Math.round(width * share.left);
  const top = Math.round(height * share.top);
  return sharp(image)
    .extract({
      left,
      top,
      width: width - left - Math.round(width * share.right),
      height: height - top - Math.round(height * share.bottom),
    })
    .jpeg({ quality: 90 })
    .toBuffer();
}

export interface AnglePair {
  document: string;
  variant: DocumentVariant;
  /** `perspective`, `tilt`, `rotated` (another photo of the card) or `copy:<name>` (the front itself). */
  kind: string;
  /** `signatureDistance` between the two photos. */
  distance: number;
  /** The 64-bit hash's distance (bits), for comparison. */
  hash_distance: number;
  /** null when the outline was not found on one of the two photos. */
  outline_change: number | null;
  /** Between the two photos' draws of the card's turn towards the camera (yaw, pitch), degrees. */
  tilt_change_deg: number;
}

export interface AngleCalibrationReport {
  options: Omit<AngleCalibrationOptions, 'log'>;
  date: string;
  pairs: AnglePair[];
  /** For each front, the smallest hash distance to the front of another card of its variant. */
  nearest_other_card: { document: string; variant: DocumentVariant; hash_distance: number; distance: number }[];
  outlines_found: Record<string, [number, number]>;
  outline_ms: number[];
}

export async function calibrateAngle(options: AngleCalibrationOptions): Promise<AngleCalibrationReport> {
  const pairs: AnglePair[] = [];
  const fronts: { document: string; variant: DocumentVariant; hash: string; signature: string }[] = [];
  const found: Record<string, [number, number]> = {};
  const outlineMs: number[] = [];
  const outlineOf = async (image: Buffer, kind: string) => {
    const started = performance.now();
    const outline = await findCardOutline(image);
    outlineMs.push(performance.now() - started);
    const tally = (found[kind] ??= [0, 0]);
    tally[1] += 1;
    if (outline !== null) tally[0] += 1;
    return outline;
  };
  for (const variant of options.variants) {
    for (let index = 0; index < options.count; index += 1) {
      const generate = async (profile: DegradationProfile) => {
        const base: GenerateOptions = {
          ...DEFAULT_GENERATE_OPTIONS,
          seed: options.seed,
          width: options.width,
          height: options.height,
          defectRate: 0,
          expiredRate: 0,
          variants: [variant],
          profiles: [profile],
        };
        const images = await generateDocumentImages(index, base);
        const front = images.find((image) => image.label.side === 'front');
        if (front === undefined) throw new Error(`${variant} has no front`);
        return front;
      };
      const front = await generate('clean');
      const document = front.label.document_id;
      const frontHash = await perceptualHash(front.image);
      const frontSignature = await perceptualSignature(front.image);
      fronts.push({ document, variant, hash: frontHash, signature: frontSignature });
      const frontOutline = await outlineOf(front.image, 'clean');
      const compare = async (kind: string, image: Buffer, tiltChange: number) => {
        const outline = await outlineOf(image, kind.startsWith('copy:') ? 'copy' : kind);
        pairs.push({
          document,
          variant,
          kind,
          hash_distance: hashDistance(frontHash, await perceptualHash(image)),
          distance: round(signatureDistance(frontSignature, await perceptualSignature(image))),
          outline_change:
            frontOutline === null || outline === null ? null : round(outlineChange(frontOutline.corners, outline.corners)),
          tilt_change_deg: round(tiltChange),
        });
      };
      for (const profile of ['perspective', 'tilt', 'rotated'] as const) {
        const other = await generate(profile);
        const turn = Math.hypot(
          other.label.degradation.yaw_deg - front.label.degradation.yaw_deg,
          other.label.degradation.pitch_deg - front.label.degradation.pitch_deg,
        );
        await compare(profile, other.image, turn);
      }
      for (const [name, copy] of Object.entries(COPIES)) await compare(`copy:${name}`, await copy(front.image), 0);
      options.log(`${variant} ${index + 1}/${options.count}`);
    }
  }
  const nearest = fronts.map((front) => ({
    document: front.document,
    variant: front.variant,
    hash_distance: Math.min(
      ...fronts
        .filter((other) => other.variant === front.variant && other.document !== front.document)
        .map((other) => hashDistance(front.hash, other.hash)),
    ),
    distance: round(
      Math.min(
        ...fronts
          .filter((other) => other.variant === front.variant && other.document !== front.document)
          .map((other) => signatureDistance(front.signature, other.signature)),
      ),
    ),
  }));
  return {
    options: {
      seed: options.seed,
      count: options.count,
      variants: options.variants,
      width: options.width,
      height: options.height,
    },
    date: new Date().toISOString().slice(0, 10),
    pairs,
    nearest_other_card: nearest,
    outlines_found: found,
    outline_ms: outlineMs,
  };
}

const round = (value: number) => Math.round(value * 10000) / 10000;

/** A genuine angled front is tilted by at least this much (degrees) for the limits to keep it. */
export const MIN_GENUINE_TILT_DEG = 10;

export interface AngleLimitsChoice {
  maxCopyDistance: number;
  minOutlineChange: number;
  /** Per pair kind: [refused as a copy, refused as not tilted (outline), pairs, outlines measured]. */
  refused: Record<string, [number, number, number, number]>;
  /** Genuine angled fronts refused, with their tilt change. */
  genuine_refused: {
    document: string;
    variant: string;
    tilt_change_deg: number;
    distance: number;
    outline_change: number | null;
  }[];
}

/**
 * The limits, chosen on a calibration report: each halfway (geometrically) between the copies' largest
 * value and the genuine angled fronts' smallest, among fronts tilted by at least `MIN_GENUINE_TILT_DEG`
 * (a card turned less is asked to be turned more). The copies are `FRAMING_COPIES` for the likeness, and
 * every copy and flat second photo (`tilt`) for the outline.
 */
export function chooseAngleLimits(report: Pick<AngleCalibrationReport, 'pairs'>): {
  maxCopyDistance: number;
  minOutlineChange: number;
} {
  const genuine = report.pairs.filter((pair) => pair.kind === 'perspective' && pair.tilt_change_deg >= MIN_GENUINE_TILT_DEG);
  const framing = report.pairs.filter(
    (pair) => pair.kind.startsWith('copy:') && FRAMING_COPIES.includes(pair.kind.slice('copy:'.length)),
  );
  const flat = report.pairs.filter((pair) => pair.kind.startsWith('copy:') || pair.kind === 'tilt');
  const between = (low: number, high: number) => Math.sqrt(Math.max(low, 1e-6) * high);
  const outlines = (pairs: AnglePair[]) => pairs.flatMap((pair) => (pair.outline_change === null ? [] : [pair.outline_change]));
  return {
    maxCopyDistance: round(
      between(Math.max(...framing.map((pair) => pair.distance)), Math.min(...genuine.map((pair) => pair.distance))),
    ),
    minOutlineChange: round(between(Math.max(...outlines(flat)), Math.min(...outlines(genuine)))),
  };
}

/** What the limits refuse on a report (calibration or held out). */
export function applyAngleLimits(
  report: Pick<AngleCalibrationReport, 'pairs'>,
  limits: { maxCopyDistance: number; minOutlineChange: number },
): AngleLimitsChoice {
  const refused: AngleLimitsChoice['refused'] = {};
  const genuineRefused: AngleLimitsChoice['genuine_refused'] = [];
  for (const pair of report.pairs) {
    const tally = (refused[pair.kind] ??= [0, 0, 0, 0]);
    tally[2] += 1;
    if (pair.outline_change !== null) tally[3] += 1;
    const copy = pair.distance < limits.maxCopyDistance;
    const flat = !copy && pair.outline_change !== null && pair.outline_change < limits.minOutlineChange;
    if (copy) tally[0] += 1;
    if (flat) tally[1] += 1;
    if ((copy || flat) && pair.kind === 'perspective') {
      genuineRefused.push({
        document: pair.document,
        variant: pair.variant,
        tilt_change_deg: pair.tilt_change_deg,
        distance: pair.distance,
        outline_change: pair.outline_change,
      });
    }
  }
  return { ...limits, refused, genuine_refused: genuineRefused };
}
