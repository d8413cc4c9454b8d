import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { DocumentFields, DocumentReasonCode } from '@idv/verification/tooling';
import {
  DOCUMENT_VARIANTS,
  generateDocument,
  type BarcodeContent,
  type Defect,
  type DocumentContent,
  type DocumentVariant,
  type MrzContentLabel,
  type PrintedFields,
  type SideContent,
  type SideLayout,
  type SideName,
} from './documents';
import {
  boundingBox,
  mapQuad,
  multiplyHomographies,
  rectQuad,
  roundQuad,
  type Box,
  type Homography,
  type Quad,
} from './geometry';
import {
  SURFACES,
  addGlare,
  addSensorNoise,
  applyLighting,
  drawCard,
  largestScale,
  opticalBlur,
  paintSurface,
  placeCard,
  type Glare,
  type Lighting,
  type Placement,
  type Surface,
} from './photo';
import { createRgbImage, encodeJpeg, fromUint8Rgb, rasteriseSvg, type RgbImage } from './raster';
import {
  autoExpose,
  drawPrintParameters,
  drawScreenParameters,
  recaptureFromPrint,
  recaptureFromScreen,
  type Recapture,
} from './recapture';
import { Random } from './random';
import { drawSide, sideSvg, type RegionName } from './render/layouts';

/**
 * The degradation profiles: each document is photographed under one of them. `clean` is a good phone
 * photo (small tilt and perspective, light optical blur and noise, JPEG 82-95); every other profile
 * pushes one parameter to its range and keeps the rest as in `clean`, so a read rate per profile says
 * which condition costs what. `screen` and `print` photograph a clean photo shown on a display or printed.
 */
export const DEGRADATION_PROFILES = [
  'clean',
  'tilt',
  'rotated',
  'perspective',
  'blur',
  'jpeg',
  'glare',
  'low_light',
  'screen',
  'print',
] as const;
export type DegradationProfile = (typeof DEGRADATION_PROFILES)[number];

export interface Degradation {
  profile: DegradationProfile;
  surface: Surface;
  /** In-plane rotation of the card, degrees (90/180/270 ± a few for `rotated`). */
  tilt_deg: number;
  yaw_deg: number;
  pitch_deg: number;
  card_fill: number;
  /** Gaussian sigma of the optical blur, in output pixels. */
  blur_sigma: number;
  jpeg_quality: number;
  glare: (Glare & { over_regions: RegionName[] }) | null;
  lighting: Lighting;
  /** Screen or print recapture; the other fields then describe the first photo (the one shown or printed) except `jpeg_quality`, `lighting.noise_sigma` and `blur_sigma`, which are the second camera's. */
  recapture: Recapture | null;
}

export interface RegionLabel {
  /** Corners in output pixels, clockwise from the document's own top-left (whatever its rotation). */
  quad: Quad;
  bbox: Box;
}

export interface SampleLabel {
  /** `<document_id>-<side>`. */
  id: string;
  file: string;
  sha256: string;
  bytes: number;
  seed: number;
  index: number;
  document_id: string;
  variant: DocumentVariant;
  doc_type: 'dni' | 'passport' | 'licence';
  side: SideName;
  layout: SideLayout;
  width: number;
  height: number;
  reference_date: string;
  /** The document's data (the same on every side of one document). */
  fields: DocumentFields;
  expected: {
    /** What a correct verdict on the whole document reports at `reference_date` (empty: approve). */
    reason_codes: DocumentReasonCode[];
    expired: boolean;
    cuil_valid: boolean | null;
    defects: Defect[];
    /** This image is a photo of a screen or of a print. */
    recapture: 'screen' | 'print' | null;
  };
  barcode: BarcodeContent | null;
  mrz: MrzContentLabel | null;
  qr: { payload: string } | null;
  printed: PrintedFields;
  regions: Partial<Record<RegionName | 'card', RegionLabel>>;
  degradation: Degradation;
}

export interface CorpusImage {
  label: SampleLabel;
  /** JPEG bytes. */
  image: Buffer;
}

export interface GenerateOptions {
  seed: number;
  /** Output image size; phones upload about 1600 px on the long side. */
  width: number;
  height: number;
  /** The date against which expiry and the expected reason codes hold (fixed, so labels never depend on the clock). */
  referenceDate: string;
  defectRate: number;
  expiredRate: number;
  /** The defects that may be drawn (`DEFAULT_DEFECTS` when absent). */
  defects?: readonly Defect[];
  variants: readonly DocumentVariant[];
  profiles: readonly DegradationProfile[];
}

export const DEFAULT_GENERATE_OPTIONS: Omit<GenerateOptions, 'seed'> = {
  width: 1600,
  height: 1200,
  referenceDate: '2026-11-23',
  defectRate: 0.2,
  expiredRate: 0.15,
  variants: DOCUMENT_VARIANTS,
  profiles: DEGRADATION_PROFILES,
};

/**
 * Which variant and profile document `index` gets: profiles cycle fastest and variants shift by one per
 * cycle, so any run of profiles × variants consecutive documents holds every pair once and a short run
 * still spreads over every profile.
 */
export function assignment(
  index: number,
  options: Pick<GenerateOptions, 'variants' | 'profiles'>,
): { variant: DocumentVariant; profile: DegradationProfile } {
  const profiles = options.profiles;
  const variants = options.variants;
  const profile = profiles[index % profiles.length];
  const variant = variants[(index + Math.floor(index / profiles.length)) % variants.length];
  if (profile === undefined || variant === undefined) throw new Error('no variant or profile to generate');
  return { variant, profile };
}

function baseLighting(random: Random): Lighting {
  return {
    gain: random.uniform(0.92, 1.08),
    gamma: random.uniform(0.95, 1.05),
    vignette: random.uniform(0, 0.25),
    gradient: random.uniform(0, 0.25),
    gradient_angle_deg: random.uniform(0, 360),
    white_balance: [random.uniform(0.94, 1.06), random.uniform(0.97, 1.03), random.uniform(0.92, 1.08)],
    noise_sigma: random.uniform(1, 3),
  };
}

export function drawDegradation(random: Random, profile: DegradationProfile): Degradation {
  const degradation: Degradation = {
    profile,
    surface: random.pick(SURFACES),
    tilt_deg: random.uniform(-3, 3),
    yaw_deg: random.uniform(-5, 5),
    pitch_deg: random.uniform(-5, 5),
    card_fill: random.uniform(0.7, 0.88),
    blur_sigma: random.uniform(0.3, 0.8),
    jpeg_quality: random.int(82, 95),
    glare: null,
    lighting: baseLighting(random),
    recapture: null,
  };
  switch (profile) {
    case 'clean':
      break;
    case 'tilt':
      degradation.tilt_deg = random.sign() * random.uniform(0, 25);
      break;
    case 'rotated':
      degradation.tilt_deg = random.pick([90, 180, 270]) + random.uniform(-3, 3);
      break;
    case 'perspective': {
      const yaw = random.uniform(-30, 30);
      const pitch = random.uniform(-30, 30);
      const combined = Math.hypot(yaw, pitch);
      const limit = combined > 35 ? 35 / combined : 1;
      degradation.yaw_deg = yaw * limit;
      degradation.pitch_deg = pitch * limit;
      break;
    }
    case 'blur':
      degradation.blur_sigma = random.uniform(0.8, 4);
      break;
    case 'jpeg':
      degradation.jpeg_quality = random.int(30, 90);
      break;
    case 'glare':
      degradation.glare = {
        cx: random.uniform(0.1, 0.9),
        cy: random.uniform(0.15, 0.85),
        rx: random.uniform(0.06, 0.2),
        ry: random.uniform(0.04, 0.14),
        angle_deg: random.uniform(0, 180),
        strength: random.uniform(0.6, 1.3),
        over_regions: [],
      };
      break;
    case 'low_light':
      degradation.lighting = {
        ...degradation.lighting,
        gain: random.uniform(0.22, 0.6),
        gamma: random.uniform(1.1, 1.8),
        noise_sigma: random.uniform(4, 10),
      };
      break;
    case 'screen':
    case 'print':
      degradation.recapture = profile === 'screen' ? drawScreenParameters(random) : drawPrintParameters(random);
      // The second camera: its own blur is the recapture's optics; its JPEG and noise are drawn here.
      degradation.blur_sigma = 0;
      degradation.jpeg_quality = random.int(60, 92);
      degradation.lighting = { ...degradation.lighting, noise_sigma: random.uniform(1.5, 5) };
      break;
  }
  return degradation;
}

/** Which regions the glare's core (where it is at least half its peak) touches, sampled in card units. */
function regionsUnderGlare(
  glare: Glare,
  regions: Partial<Record<RegionName, Quad>>,
  cardWidth: number,
  cardHeight: number,
): RegionName[] {
  const cx = glare.cx * cardWidth;
  const cy = glare.cy * cardHeight;
  const rx = glare.rx * cardWidth;
  const ry = glare.ry * cardWidth;
  const cos = Math.cos((glare.angle_deg * Math.PI) / 180);
  const sin = Math.sin((glare.angle_deg * Math.PI) / 180);
  const covered: RegionName[] = [];
  for (const [name, quad] of Object.entries(regions) as [RegionName, Quad][]) {
    const box = boundingBox(quad);
    let hit = false;
    for (let i = 0; i <= 10 && !hit; i += 1) {
      for (let j = 0; j <= 10 && !hit; j += 1) {
        const du = box.x + (box.width * i) / 10 - cx;
        const dv = box.y + (box.height * j) / 10 - cy;
        const a = (du * cos + dv * sin) / rx;
        const b = (-du * sin + dv * cos) / ry;
        // 1.6·exp(−1.2·d) ≥ 1 (a saturated core) for d ≤ ln(1.6)/1.2.
        hit = a * a + b * b <= Math.log(1.6) / 1.2;
      }
    }
    if (hit) covered.push(name);
  }
  return covered.sort();
}

interface Photo {
  image: RgbImage;
  cardToPhoto: Homography;
}

/** A photo of a side laid on a surface, before the camera's blur, noise and JPEG. */
async function photographSide(
  random: Random,
  drawing: ReturnType<typeof drawSide>,
  degradation: Degradation,
  width: number,
  height: number,
): Promise<Photo> {
  const image = createRgbImage(width, height);
  paintSurface(random.fork('surface'), image, degradation.surface);
  const placement: Placement = {
    tilt_deg: degradation.tilt_deg,
    yaw_deg: degradation.yaw_deg,
    pitch_deg: degradation.pitch_deg,
    fill: degradation.card_fill,
    offset_x: random.uniform(-0.7, 0.7),
    offset_y: random.uniform(-0.7, 0.7),
  };
  const corners = placeCard(drawing.width, drawing.height, placement, width, height);
  const pixelWidth = Math.max(64, Math.ceil(drawing.width * largestScale(drawing.width, drawing.height, corners)));
  const raster = await rasteriseSvg(sideSvg(drawing, pixelWidth));
  const cardToPhoto = drawCard(image, raster, drawing.width, drawing.height, corners);
  if (degradation.glare !== null) addGlare(image, cardToPhoto, drawing.width, drawing.height, degradation.glare);
  return { image, cardToPhoto };
}

async function jpegRoundTrip(image: RgbImage, quality: number): Promise<RgbImage> {
  const { data, info } = await sharp(await encodeJpeg(image, quality))
    .raw()
    .toBuffer({ resolveWithObject: true });
  return fromUint8Rgb(data, info.width, info.height);
}

function regionLabel(quad: Quad): RegionLabel {
  const rounded = roundQuad(quad);
  const box = boundingBox(rounded);
  return {
    quad: rounded,
    bbox: { x: Math.round(box.x), y: Math.round(box.y), width: Math.round(box.width), height: Math.round(box.height) },
  };
}

async function renderSide(
  random: Random,
  document: DocumentContent,
  side: SideContent,
  degradation: Degradation,
  options: GenerateOptions,
): Promise<{ jpeg: Buffer; regions: SampleLabel['regions'] }> {
  const drawing = drawSide(random.fork('drawing'), document, side);
  if (degradation.glare !== null) {
    degradation.glare.over_regions = regionsUnderGlare(degradation.glare, drawing.regions, drawing.width, drawing.height);
  }
  const { width, height } = options;
  let photo = await photographSide(random.fork('photo'), drawing, degradation, width, height);
  let cardToOutput = photo.cardToPhoto;
  if (degradation.recapture !== null) {
    // The first photo, as its owner kept it (lit, lightly blurred, JPEG), is what gets shown or printed.
    const first = photo.image;
    applyLighting(first, { ...degradation.lighting, noise_sigma: 0 });
    const shown = await jpegRoundTrip(await opticalBlur(first, 0.5), random.int(85, 95));
    const recaptured =
      degradation.recapture.kind === 'screen'
        ? await recaptureFromScreen(shown, degradation.recapture, width, height)
        : recaptureFromPrint(random.fork('print'), shown, degradation.recapture, random.pick(SURFACES), width, height);
    cardToOutput = multiplyHomographies(recaptured.contentToPhoto, photo.cardToPhoto);
    photo = { image: recaptured.image, cardToPhoto: cardToOutput };
    autoExpose(photo.image, degradation.recapture.exposure_target);
    // The second camera's exposure: a neutral gain and white balance around the screen's or paper's own.
    applyLighting(photo.image, { ...baseLighting(random.fork('second-camera')), noise_sigma: 0 });
  } else {
    applyLighting(photo.image, degradation.lighting);
    photo.image = await opticalBlur(photo.image, degradation.blur_sigma);
  }
  addSensorNoise(random.fork('noise'), photo.image, degradation.lighting.noise_sigma);
  const jpeg = await encodeJpeg(photo.image, degradation.jpeg_quality);
  const regions: SampleLabel['regions'] = {
    card: regionLabel(mapQuad(cardToOutput, rectQuad(0, 0, drawing.width, drawing.height))),
  };
  for (const [name, quad] of Object.entries(drawing.regions) as [RegionName, Quad][])
    regions[name] = regionLabel(mapQuad(cardToOutput, quad));
  return { jpeg, regions };
}

export function documentId(seed: number, index: number): string {
  return `s${seed}-${String(index).padStart(6, '0')}`;
}

/**
 * Every side of document `index` of the corpus of `options.seed`, as JPEG images with their labels.
 * `photo` 0 is the corpus's photo of each side; photo n > 0 is the n-th retake: the same card photographed
 * again under the same degradation profile (its own placement, light, blur, noise and JPEG), as a person
 * asked for another photo takes one. Its files and label ids end in `-retake<n>`.
 */
export async function generateDocumentImages(index: number, options: GenerateOptions, photo = 0): Promise<CorpusImage[]> {
  const { variant, profile } = assignment(index, options);
  const id = documentId(options.seed, index);
  const document = generateDocument(Random.forSample(options.seed, index, 'document'), id, variant, {
    referenceDate: options.referenceDate,
    defectRate: options.defectRate,
    expiredRate: options.expiredRate,
    ...(options.defects === undefined ? {} : { defects: options.defects }),
  });
  const images: CorpusImage[] = [];
  const suffix = photo === 0 ? '' : `-retake${photo}`;
  for (const side of document.sides) {
    const random = Random.forSample(
      options.seed,
      index,
      photo === 0 ? `image/${side.side}` : `image/${side.side}/retake${photo}`,
    );
    const degradation = drawDegradation(random.fork('degradation'), profile);
    const { jpeg, regions } = await renderSide(random, document, side, degradation, options);
    const recapture = degradation.recapture?.kind ?? null;
    const reasonCodes: DocumentReasonCode[] =
      recapture === null
        ? document.expected_reason_codes
        : [...new Set([...document.expected_reason_codes, 'document_screen_detected' as const])].sort();
    images.push({
      image: jpeg,
      label: {
        id: `${id}-${side.side}${suffix}`,
        file: `${id}-${side.side}${suffix}.jpg`,
        sha256: createHash('sha256').update(jpeg).digest('hex'),
        bytes: jpeg.length,
        seed: options.seed,
        index,
        document_id: id,
        variant,
        doc_type: document.fields.doc_type ?? 'dni',
        side: side.side,
        layout: side.layout,
        width: options.width,
        height: options.height,
        reference_date: document.reference_date,
        fields: document.fields,
        expected: {
          reason_codes: reasonCodes,
          expired: document.expired,
          cuil_valid: document.cuil_valid,
          defects: document.defects,
          recapture,
        },
        barcode: side.barcode,
        mrz: side.mrz,
        qr: side.qr,
        printed: side.printed,
        regions,
        degradation,
      },
    });
  }
  return images;
}

/** The document content alone (no image), for tests and tools that only need the payloads. */
export function generateDocumentContent(
  index: number,
  options: Pick<GenerateOptions, 'seed' | 'referenceDate' | 'defectRate' | 'expiredRate' | 'defects' | 'variants' | 'profiles'>,
): DocumentContent {
  const { variant } = assignment(index, options);
  return generateDocument(Random.forSample(options.seed, index, 'document'), documentId(options.seed, index), variant, {
    referenceDate: options.referenceDate,
    defectRate: options.defectRate,
    expiredRate: options.expiredRate,
    ...(options.defects === undefined ? {} : { defects: options.defects }),
  });
}
