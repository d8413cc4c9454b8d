import {
  applyHomography,
  homographyFromQuads,
  invertHomography,
  mapQuad,
  projectPlane,
  rectQuad,
  type Homography,
  type Quad,
} from './geometry';
import { gaussianBlur, warpOnto, type RgbImage, type RgbaImage } from './raster';
import type { Random } from './random';

// Pixel loops call these millions of times: aliased once here, because a global lookup per call is
// slow wherever the global object is not the realm's own (jest runs tests in such a context).
const { cos, exp, floor, hypot, max, min, pow, sin, sqrt } = Math;

/**
 * The camera: a card laid on a surface and photographed. Builds the scene (a surface, the card under a
 * perspective), then applies what light and the phone do to it: a specular highlight on the laminate,
 * uneven light and white balance, optical blur, exposure and tone, sensor noise. JPEG comes last, in the
 * generator. Every step is a pure function of its parameters and a seeded generator.
 */

export const SURFACES = ['wood', 'grey_desk', 'white_table', 'dark_fabric', 'blue_fabric'] as const;
export type Surface = (typeof SURFACES)[number];

const SURFACE_COLOURS: Record<Surface, readonly [number, number, number]> = {
  wood: [150, 105, 70],
  grey_desk: [120, 122, 125],
  white_table: [222, 220, 214],
  dark_fabric: [45, 44, 48],
  blue_fabric: [60, 80, 120],
};

/** Smooth random field in [-1, 1]: bilinear interpolation of a coarse grid of random values. */
function valueNoise(
  random: Random,
  width: number,
  height: number,
  cellsX: number,
  cellsY: number,
): (x: number, y: number) => number {
  const grid = Array.from({ length: (cellsX + 2) * (cellsY + 2) }, () => random.uniform(-1, 1));
  return (x, y) => {
    const gx = (x / width) * cellsX;
    const gy = (y / height) * cellsY;
    const x0 = floor(gx);
    const y0 = floor(gy);
    const tx = gx - x0;
    const ty = gy - y0;
    const at = (i: number, j: number): number => grid[j * (cellsX + 2) + i] ?? 0;
    const sx = tx * tx * (3 - 2 * tx);
    const sy = ty * ty * (3 - 2 * ty);
    const top = at(x0, y0) * (1 - sx) + at(x0 + 1, y0) * sx;
    const bottom = at(x0, y0 + 1) * (1 - sx) + at(x0 + 1, y0 + 1) * sx;
    return top * (1 - sy) + bottom * sy;
  };
}

export function paintSurface(random: Random, image: RgbImage, surface: Surface): void {
  const [r0, g0, b0] = SURFACE_COLOURS[surface];
  const broad = valueNoise(random, image.width, image.height, 4, 3);
  const grain =
    surface === 'wood'
      ? valueNoise(random, image.width, image.height, 3, 60)
      : valueNoise(random, image.width, image.height, 40, 30);
  const grainAmount = surface === 'wood' ? 0.14 : 0.04;
  const { width, height, data } = image;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const factor = 1 + 0.1 * broad(x, y) + grainAmount * grain(x, y);
      const offset = (y * width + x) * 3;
      data[offset] = r0 * factor;
      data[offset + 1] = g0 * factor;
      data[offset + 2] = b0 * factor;
    }
  }
}

export interface Placement {
  /** Rotation of the card in the image plane (degrees, clockwise positive as seen in the photo). */
  tilt_deg: number;
  /** Turn about the card's vertical axis (perspective), degrees. */
  yaw_deg: number;
  /** Turn about the card's horizontal axis (perspective), degrees. */
  pitch_deg: number;
  /** Width of the card's bounding box as a fraction of the image width (before it is fitted inside). */
  fill: number;
  /** Offset of the card's centre from the image centre, as fractions of the free margin. */
  offset_x: number;
  offset_y: number;
}

/**
 * Where the card's corners land in a `width`×`height` photo: projected with the placement's angles,
 * scaled so the bounding box fills `fill` of the width (and fits the height), then moved by the offset.
 */
export function placeCard(cardWidth: number, cardHeight: number, placement: Placement, width: number, height: number): Quad {
  // A phone held 25-35 cm from a card: focal length about four card widths.
  const projected = projectPlane(
    cardWidth,
    cardHeight,
    { yawDeg: placement.yaw_deg, pitchDeg: placement.pitch_deg, rollDeg: placement.tilt_deg },
    cardWidth * 4,
  );
  const xs = projected.map((point) => point[0]);
  const ys = projected.map((point) => point[1]);
  const boxWidth = max(...xs) - min(...xs);
  const boxHeight = max(...ys) - min(...ys);
  const scale = min((placement.fill * width) / boxWidth, (0.94 * height) / boxHeight);
  const centreX = (max(...xs) + min(...xs)) / 2;
  const centreY = (max(...ys) + min(...ys)) / 2;
  const marginX = (width - boxWidth * scale) / 2;
  const marginY = (height - boxHeight * scale) / 2;
  const shiftX = width / 2 + placement.offset_x * marginX * 0.9;
  const shiftY = height / 2 + placement.offset_y * marginY * 0.9;
  return projected.map(([x, y]) => [(x - centreX) * scale + shiftX, (y - centreY) * scale + shiftY]) as unknown as Quad;
}

/** The card's largest scale in the photo (pixels per card unit), to render its raster at about that size. */
export function largestScale(cardWidth: number, cardHeight: number, corners: Quad): number {
  const edge = (a: number, b: number): number =>
    hypot((corners[a]?.[0] ?? 0) - (corners[b]?.[0] ?? 0), (corners[a]?.[1] ?? 0) - (corners[b]?.[1] ?? 0));
  return max(edge(0, 1) / cardWidth, edge(3, 2) / cardWidth, edge(1, 2) / cardHeight, edge(0, 3) / cardHeight);
}

/**
 * Draws the card raster (rendered at `cardRaster.width` px for `cardWidth` card units) onto the image at
 * `corners`, and returns the homography from card units to image pixels.
 */
export function drawCard(
  image: RgbImage,
  cardRaster: RgbaImage,
  cardWidth: number,
  cardHeight: number,
  corners: Quad,
): Homography {
  const rasterToImage = homographyFromQuads(rectQuad(0, 0, cardRaster.width, cardRaster.height), corners);
  const xs = corners.map((point) => point[0]);
  const ys = corners.map((point) => point[1]);
  warpOnto(image, cardRaster, invertHomography(rasterToImage), 2, {
    x0: min(...xs) - 2,
    y0: min(...ys) - 2,
    x1: max(...xs) + 2,
    y1: max(...ys) + 2,
  });
  return homographyFromQuads(rectQuad(0, 0, cardWidth, cardHeight), corners);
}

export interface Glare {
  /** Centre, in fractions of the card's width and height. */
  cx: number;
  cy: number;
  /** Radii, in fractions of the card's width. */
  rx: number;
  ry: number;
  /** Angle of the ellipse in card coordinates, degrees. */
  angle_deg: number;
  /** Peak added light, as a fraction of full scale (≥ 1 saturates the core). */
  strength: number;
}

/**
 * A specular highlight on the card's laminate: an elliptical bright spot fixed to the card (so it follows
 * the perspective), with a saturated core and a soft edge.
 */
export function addGlare(image: RgbImage, cardToImage: Homography, cardWidth: number, cardHeight: number, glare: Glare): void {
  const imageToCard = invertHomography(cardToImage);
  const cx = glare.cx * cardWidth;
  const cy = glare.cy * cardHeight;
  const rx = glare.rx * cardWidth;
  const ry = glare.ry * cardWidth;
  const glareCos = cos((glare.angle_deg * Math.PI) / 180);
  const glareSin = sin((glare.angle_deg * Math.PI) / 180);
  const { width, height, data } = image;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const [u, v] = applyHomography(imageToCard, [x + 0.5, y + 0.5]);
      if (u < 0 || v < 0 || u > cardWidth || v > cardHeight) continue;
      const du = u - cx;
      const dv = v - cy;
      const a = (du * glareCos + dv * glareSin) / rx;
      const b = (-du * glareSin + dv * glareCos) / ry;
      const distance = a * a + b * b;
      if (distance > 6) continue;
      const light = 255 * glare.strength * min(1, 1.6 * exp(-distance * 1.2));
      const offset = (y * width + x) * 3;
      // Specular light is the lamp's colour, not the card's: it adds towards white.
      data[offset] = (data[offset] ?? 0) + light;
      data[offset + 1] = (data[offset + 1] ?? 0) + light;
      data[offset + 2] = (data[offset + 2] ?? 0) + light * 0.97;
    }
  }
}

export interface Lighting {
  /** Overall exposure multiplier (1 = well exposed; low light is 0.2-0.6). */
  gain: number;
  /** Tone curve exponent applied after the gain (> 1 darkens mid-tones, as an underexposed phone photo). */
  gamma: number;
  /** Darkening towards the corners (0 none, 0.4 strong). */
  vignette: number;
  /** Linear light gradient across the image: fraction of change from one side to the other. */
  gradient: number;
  gradient_angle_deg: number;
  /** White-balance multipliers per channel. */
  white_balance: readonly [number, number, number];
  /** Sensor noise: standard deviation in 8-bit levels at mid grey (read noise plus shot noise). */
  noise_sigma: number;
}

// The tone curve is applied through a table: a power per channel per pixel costs more than the rest.
const TONE_STEPS = 4096;
const TONE_MAX = 1.2;

export function applyLighting(image: RgbImage, lighting: Lighting): void {
  const { width, height, data } = image;
  const angle = (lighting.gradient_angle_deg * Math.PI) / 180;
  const gx = cos(angle);
  const gy = sin(angle);
  const halfDiagonal = hypot(width, height) / 2;
  const tone = new Float32Array(TONE_STEPS + 1);
  for (let step = 0; step <= TONE_STEPS; step += 1) tone[step] = 255 * pow((step / TONE_STEPS) * TONE_MAX, lighting.gamma);
  const [wr, wg, wb] = lighting.white_balance;
  const scale = TONE_STEPS / (255 * TONE_MAX);
  const lookUp = (value: number): number => {
    const index = value * scale;
    if (index <= 0) return 0;
    if (index >= TONE_STEPS) return tone[TONE_STEPS] ?? 255;
    const low = floor(index);
    const t = index - low;
    return (tone[low] ?? 0) * (1 - t) + (tone[low + 1] ?? 0) * t;
  };
  for (let y = 0; y < height; y += 1) {
    const ny = (y - height / 2) / halfDiagonal;
    for (let x = 0; x < width; x += 1) {
      const nx = (x - width / 2) / halfDiagonal;
      const light =
        lighting.gain * (1 - lighting.vignette * (nx * nx + ny * ny)) * (1 + (lighting.gradient / 2) * (nx * gx + ny * gy));
      const offset = (y * width + x) * 3;
      data[offset] = lookUp((data[offset] ?? 0) * light * wr);
      data[offset + 1] = lookUp((data[offset + 1] ?? 0) * light * wg);
      data[offset + 2] = lookUp((data[offset + 2] ?? 0) * light * wb);
    }
  }
}

/**
 * Sensor noise: a luminance part shared by the three channels and a smaller chroma part, with shot noise
 * growing with the signal, as a phone's pipeline leaves it after its own denoising.
 */
export function addSensorNoise(random: Random, image: RgbImage, sigma: number): void {
  if (sigma <= 0) return;
  const { data } = image;
  for (let offset = 0; offset < data.length; offset += 3) {
    const level = ((data[offset] ?? 0) + (data[offset + 1] ?? 0) + (data[offset + 2] ?? 0)) / (3 * 255);
    const scale = sigma * (0.6 + 0.8 * sqrt(max(level, 0)));
    const shared = random.fastNormal() * scale;
    data[offset] = (data[offset] ?? 0) + shared + random.fastNormal() * scale * 0.35;
    data[offset + 1] = (data[offset + 1] ?? 0) + shared + random.fastNormal() * scale * 0.25;
    data[offset + 2] = (data[offset + 2] ?? 0) + shared + random.fastNormal() * scale * 0.35;
  }
}

export async function opticalBlur(image: RgbImage, sigma: number): Promise<RgbImage> {
  return gaussianBlur(image, sigma);
}

export function mapRegions<K extends string>(
  regions: Partial<Record<K, Quad>>,
  homography: Homography,
): Partial<Record<K, Quad>> {
  const mapped: Partial<Record<K, Quad>> = {};
  for (const [name, quad] of Object.entries(regions) as [K, Quad][]) mapped[name] = mapQuad(homography, quad);
  return mapped;
}
