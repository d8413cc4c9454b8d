import {
  homographyFromQuads,
  invertHomography,
  multiplyHomographies,
  projectPlane,
  rectQuad,
  type Homography,
  type Quad,
} from './geometry';
import { paintSurface, type Surface } from './photo';
import { createRgbImage, gaussianBlurFloat, resizeRgb, sampleRgb, type RgbImage } from './raster';
import type { Random } from './random';

// Pixel loops call these millions of times: aliased once here, because a global lookup per call is
// slow wherever the global object is not the realm's own (jest runs tests in such a context).
const { abs, cos, exp, floor, log, max, min, pow, round, sin } = Math;

/**
 * Recaptures: a photo of a document shown on a screen, or printed on paper, photographed again. What a
 * camera sees of a screen is a grid of red, green and blue sub-pixel stripes separated by a black matrix;
 * sampled by the sensor's own grid it aliases into moiré, and the display shifts tone and colour (raised
 * blacks, a bluish white point) and reflects the room (a broad glare and a veil of stray light). A print
 * is made of rotated grids of cyan, magenta, yellow and black dots on a paper whose white is not white.
 *
 * Both are rendered at twice the output resolution, blurred by the camera's optics there, then averaged
 * down 2×2 by the sensor, so that the aliasing (and so the moiré) arises where it does in a real camera:
 * at the pixel grid, after the lens.
 */

export interface Placement3d {
  rotation_deg: number;
  yaw_deg: number;
  pitch_deg: number;
  /** Width of the screen's (or paper's) image as a fraction of the photo's width (> 1: it overflows the frame). */
  coverage: number;
  offset_x: number;
  offset_y: number;
}

export interface ScreenRecapture extends Placement3d {
  kind: 'screen';
  /** Camera pixels per screen pixel (below about 2 the sub-pixel grid aliases into moiré). */
  pixel_pitch_px: number;
  subpixel_order: 'rgb' | 'bgr';
  /** Fraction of a sub-pixel's width that emits (the rest is the black matrix). */
  stripe_fill: number;
  /** Fraction of a pixel's height that emits. */
  row_fill: number;
  /** Display tone curve exponent. */
  display_gamma: number;
  /** The screen's black as a fraction of its white (LCDs leak light). */
  black_level: number;
  white_point: readonly [number, number, number];
  saturation: number;
  /** Stray light over the whole screen, in 8-bit levels. */
  veiling_glare: number;
  /** A reflection of a lamp or window on the glass, in fractions of the screen. */
  reflection: { cx: number; cy: number; rx: number; ry: number; strength: number } | null;
  /** The camera's optical blur (sigma in output pixels). */
  optics_sigma: number;
  /** Luma the second camera's auto-exposure puts the 98th percentile at. */
  exposure_target: number;
}

export interface PrintRecapture extends Placement3d {
  kind: 'print';
  /** Halftone cell size in camera pixels. */
  halftone_period_px: number;
  /** Rotation of the whole CMYK screen set (classic angles C 15°, M 75°, Y 0°, K 45° added to it). */
  screen_angle_deg: number;
  paper: readonly [number, number, number];
  ink_density: number;
  /** Dot gain: how much larger a printed dot is than its nominal coverage (−0.1 … +0.2). */
  dot_gain: number;
  optics_sigma: number;
  exposure_target: number;
}

export type Recapture = ScreenRecapture | PrintRecapture;

export function drawScreenParameters(random: Random): ScreenRecapture {
  return {
    kind: 'screen',
    // Log-uniform: as many fine (aliasing) grids as coarse (visible) ones.
    pixel_pitch_px: exp(random.uniform(log(1.15), log(4))),
    subpixel_order: random.chance(0.8) ? 'rgb' : 'bgr',
    stripe_fill: random.uniform(0.6, 0.9),
    row_fill: random.uniform(0.7, 0.95),
    rotation_deg: random.uniform(-10, 10),
    yaw_deg: random.uniform(-15, 15),
    pitch_deg: random.uniform(-15, 15),
    coverage: random.uniform(0.95, 1.25),
    offset_x: random.uniform(-0.5, 0.5),
    offset_y: random.uniform(-0.5, 0.5),
    display_gamma: random.uniform(0.8, 1.25),
    black_level: random.uniform(0.02, 0.12),
    white_point: [random.uniform(0.82, 1), random.uniform(0.9, 1), 1],
    saturation: random.uniform(0.85, 1.25),
    veiling_glare: random.uniform(0, 25),
    reflection: random.chance(0.4)
      ? {
          cx: random.uniform(0.1, 0.9),
          cy: random.uniform(0.1, 0.9),
          rx: random.uniform(0.15, 0.5),
          ry: random.uniform(0.1, 0.4),
          strength: random.uniform(0.1, 0.6),
        }
      : null,
    optics_sigma: random.uniform(0.4, 1.6),
    exposure_target: random.uniform(200, 245),
  };
}

export function drawPrintParameters(random: Random): PrintRecapture {
  return {
    kind: 'print',
    halftone_period_px: exp(random.uniform(log(1.6), log(5))),
    screen_angle_deg: random.uniform(-10, 10),
    paper: [random.uniform(236, 252), random.uniform(232, 248), random.uniform(214, 240)],
    ink_density: random.uniform(0.8, 1),
    dot_gain: random.uniform(-0.1, 0.2),
    rotation_deg: random.uniform(-10, 10),
    yaw_deg: random.uniform(-15, 15),
    pitch_deg: random.uniform(-15, 15),
    coverage: random.uniform(0.9, 1.2),
    offset_x: random.uniform(-0.5, 0.5),
    offset_y: random.uniform(-0.5, 0.5),
    optics_sigma: random.uniform(0.4, 1.6),
    exposure_target: random.uniform(200, 245),
  };
}

/** Corners of a `width`×`height` plane placed in the photo (may overflow the frame). */
function placePlane(width: number, height: number, placement: Placement3d, photoWidth: number, photoHeight: number): Quad {
  const projected = projectPlane(
    width,
    height,
    { yawDeg: placement.yaw_deg, pitchDeg: placement.pitch_deg, rollDeg: placement.rotation_deg },
    width * 3,
  );
  const xs = projected.map((point) => point[0]);
  const ys = projected.map((point) => point[1]);
  const boxWidth = max(...xs) - min(...xs);
  const boxHeight = max(...ys) - min(...ys);
  const scale = max((placement.coverage * photoWidth) / boxWidth, (0.9 * photoHeight) / boxHeight);
  const centreX = (max(...xs) + min(...xs)) / 2;
  const centreY = (max(...ys) + min(...ys)) / 2;
  const slackX = abs(photoWidth - boxWidth * scale) / 2;
  const slackY = abs(photoHeight - boxHeight * scale) / 2;
  return projected.map(([x, y]) => [
    (x - centreX) * scale + photoWidth / 2 + placement.offset_x * slackX,
    (y - centreY) * scale + photoHeight / 2 + placement.offset_y * slackY,
  ]) as unknown as Quad;
}

const OVERSAMPLING = 2;

/** Optical blur at the oversampled resolution (in floating point: light is not clipped yet), then the sensor's 2×2 average. */
function throughCamera(hiRes: RgbImage, opticsSigma: number, width: number, height: number): RgbImage {
  const blurred = gaussianBlurFloat(hiRes, max(0.3, opticsSigma * OVERSAMPLING)).data;
  const out = createRgbImage(width, height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      for (let channel = 0; channel < 3; channel += 1) {
        let sum = 0;
        for (let dy = 0; dy < OVERSAMPLING; dy += 1) {
          for (let dx = 0; dx < OVERSAMPLING; dx += 1) {
            sum += blurred[((y * OVERSAMPLING + dy) * hiRes.width + (x * OVERSAMPLING + dx)) * 3 + channel] ?? 0;
          }
        }
        out.data[(y * width + x) * 3 + channel] = sum / (OVERSAMPLING * OVERSAMPLING);
      }
    }
  }
  return out;
}

/**
 * The second camera's auto-exposure: a phone meters the scene and exposes so that its highlights sit
 * near the top of the range, whatever the screen's brightness or the paper's. Scales the light so that
 * the 98th percentile of luma lands on `target`; returns the gain used.
 */
export function autoExpose(image: RgbImage, target: number): number {
  const histogram = new Uint32Array(1024);
  const { data } = image;
  let count = 0;
  for (let offset = 0; offset < data.length; offset += 3 * 7) {
    const luma = 0.299 * (data[offset] ?? 0) + 0.587 * (data[offset + 1] ?? 0) + 0.114 * (data[offset + 2] ?? 0);
    histogram[min(1023, max(0, floor(luma)))] = (histogram[min(1023, max(0, floor(luma)))] ?? 0) + 1;
    count += 1;
  }
  let seen = 0;
  let level = 1023;
  for (let index = 0; index < 1024; index += 1) {
    seen += histogram[index] ?? 0;
    if (seen >= 0.98 * count) {
      level = index;
      break;
    }
  }
  const gain = min(4, max(0.25, target / max(1, level)));
  for (let index = 0; index < data.length; index += 1) data[index] = (data[index] ?? 0) * gain;
  return gain;
}

export interface RecaptureResult {
  image: RgbImage;
  /** From the shown (or printed) image's pixels to the recapture's pixels. */
  contentToPhoto: Homography;
}

/** `content` shown full-screen on a display and photographed into a `width`×`height` image. */
export async function recaptureFromScreen(
  content: RgbImage,
  params: ScreenRecapture,
  width: number,
  height: number,
): Promise<RecaptureResult> {
  const screenWidth = max(16, round((width * params.coverage) / params.pixel_pitch_px));
  const screenHeight = max(12, round((screenWidth * content.height) / content.width));
  const shown = await resizeRgb(content, screenWidth, screenHeight);
  // The display's tone and colour: gamma, saturation, white point, leaking black.
  const emitted = new Float32Array(screenWidth * screenHeight * 3);
  for (let index = 0; index < screenWidth * screenHeight; index += 1) {
    const r = (shown.data[index * 3] ?? 0) / 255;
    const g = (shown.data[index * 3 + 1] ?? 0) / 255;
    const b = (shown.data[index * 3 + 2] ?? 0) / 255;
    const luma = 0.299 * r + 0.587 * g + 0.114 * b;
    const channels = [r, g, b].map((value) => min(1, max(0, luma + (value - luma) * params.saturation)));
    for (let channel = 0; channel < 3; channel += 1) {
      const tone = pow(channels[channel] ?? 0, params.display_gamma) * (params.white_point[channel] ?? 1);
      emitted[index * 3 + channel] = params.black_level + (1 - params.black_level) * tone;
    }
  }
  const corners = placePlane(screenWidth, screenHeight, params, width, height);
  const screenToPhoto = homographyFromQuads(rectQuad(0, 0, screenWidth, screenHeight), corners);
  const hiRes = createRgbImage(width * OVERSAMPLING, height * OVERSAMPLING);
  const hiToScreen = invertHomography(
    homographyFromQuads(
      rectQuad(0, 0, screenWidth, screenHeight),
      corners.map(([x, y]) => [x * OVERSAMPLING, y * OVERSAMPLING]) as unknown as Quad,
    ),
  );
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = hiToScreen;
  const order = params.subpixel_order === 'rgb' ? [0, 1, 2] : [2, 1, 0];
  // Each pixel's three stripes share its width; brightness is scaled so a uniform area keeps its level.
  const emissionGain = 1 / (params.stripe_fill * params.row_fill);
  const reflection = params.reflection;
  for (let y = 0; y < hiRes.height; y += 1) {
    for (let x = 0; x < hiRes.width; x += 1) {
      const offset = (y * hiRes.width + x) * 3;
      let light = params.veiling_glare;
      // Two samples per oversampled pixel along x: the stripes are three to a screen pixel.
      for (let sample = 0; sample < 2; sample += 1) {
        const px = x + 0.25 + sample * 0.5;
        const py = y + 0.5;
        const w = h6 * px + h7 * py + h8;
        const u = (h0 * px + h1 * py + h2) / w;
        const v = (h3 * px + h4 * py + h5) / w;
        if (u < 0 || v < 0 || u >= screenWidth || v >= screenHeight) {
          // The bezel: dark, slightly reflective plastic.
          for (let channel = 0; channel < 3; channel += 1)
            hiRes.data[offset + channel] = (hiRes.data[offset + channel] ?? 0) + 4.5;
          continue;
        }
        if (sample === 0 && reflection !== null) {
          // The reflection is smooth: once per oversampled pixel is enough.
          const a = (u / screenWidth - reflection.cx) / reflection.rx;
          const b = (v / screenHeight - reflection.cy) / reflection.ry;
          light += 255 * reflection.strength * exp(-(a * a + b * b) * 1.5);
        }
        const column = floor(u);
        const row = floor(v);
        const withinRow = v - row;
        const stripePosition = (u - column) * 3;
        const stripe = min(2, floor(stripePosition));
        const withinStripe = stripePosition - stripe;
        const channel = order[stripe] ?? 0;
        const lit = withinRow < params.row_fill && withinStripe < params.stripe_fill;
        const value = lit ? (emitted[(row * screenWidth + column) * 3 + channel] ?? 0) * 255 * 3 * emissionGain : 0;
        hiRes.data[offset + channel] = (hiRes.data[offset + channel] ?? 0) + value / 2;
      }
      for (let channel = 0; channel < 3; channel += 1) hiRes.data[offset + channel] = (hiRes.data[offset + channel] ?? 0) + light;
    }
  }
  const image = throughCamera(hiRes, params.optics_sigma, width, height);
  const contentToScreen = homographyFromQuads(
    rectQuad(0, 0, content.width, content.height),
    rectQuad(0, 0, screenWidth, screenHeight),
  );
  return { image, contentToPhoto: multiplyHomographies(screenToPhoto, contentToScreen) };
}

// Ink absorption per RGB channel (what fraction of red, green and blue light each ink takes away).
const INKS: readonly { angle: number; absorbs: readonly [number, number, number] }[] = [
  { angle: 15, absorbs: [0.85, 0.22, 0.06] },
  { angle: 75, absorbs: [0.08, 0.8, 0.25] },
  { angle: 0, absorbs: [0.02, 0.08, 0.85] },
  { angle: 45, absorbs: [0.88, 0.88, 0.88] },
];

const COS_TABLE_SIZE = 4096;
const COS_TABLE = Float32Array.from({ length: COS_TABLE_SIZE }, (_, index) => cos((2 * Math.PI * index) / COS_TABLE_SIZE));
function cosTurns(turns: number): number {
  const index = floor((turns - floor(turns)) * COS_TABLE_SIZE);
  return COS_TABLE[index] ?? 1;
}

/** `content` printed with an AM halftone on paper lying on `surface`, photographed into `width`×`height`. */
export function recaptureFromPrint(
  random: Random,
  content: RgbImage,
  params: PrintRecapture,
  surface: Surface,
  width: number,
  height: number,
): RecaptureResult {
  const corners = placePlane(content.width, content.height, params, width, height);
  const contentToPhoto = homographyFromQuads(rectQuad(0, 0, content.width, content.height), corners);
  const hiRes = createRgbImage(width * OVERSAMPLING, height * OVERSAMPLING);
  paintSurface(random, hiRes, surface);
  const hiToContent = invertHomography(
    homographyFromQuads(
      rectQuad(0, 0, content.width, content.height),
      corners.map(([x, y]) => [x * OVERSAMPLING, y * OVERSAMPLING]) as unknown as Quad,
    ),
  );
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = hiToContent;
  // The halftone cell in content pixels: camera pixels per cell × content pixels per camera pixel.
  const contentPerPhoto = content.width / (params.coverage * width);
  const period = params.halftone_period_px * contentPerPhoto;
  const screens = INKS.map((ink) => {
    const angle = ((ink.angle + params.screen_angle_deg) * Math.PI) / 180;
    return { cos: cos(angle) / period, sin: sin(angle) / period, absorbs: ink.absorbs };
  });
  const colour = new Float32Array(3);
  for (let y = 0; y < hiRes.height; y += 1) {
    for (let x = 0; x < hiRes.width; x += 1) {
      const px = x + 0.5;
      const py = y + 0.5;
      const w = h6 * px + h7 * py + h8;
      const u = (h0 * px + h1 * py + h2) / w;
      const v = (h3 * px + h4 * py + h5) / w;
      if (u < 0 || v < 0 || u >= content.width || v >= content.height) continue;
      sampleRgb(content, u, v, colour);
      const r = (colour[0] ?? 0) / 255;
      const g = (colour[1] ?? 0) / 255;
      const b = (colour[2] ?? 0) / 255;
      const black = 1 - max(r, g, b);
      const rest = max(1e-6, 1 - black);
      const coverages = [(1 - r - black) / rest, (1 - g - black) / rest, (1 - b - black) / rest, black];
      const reflectance = [1, 1, 1];
      for (let ink = 0; ink < 4; ink += 1) {
        const screen = screens[ink];
        const coverage = min(
          1,
          max(0, (coverages[ink] ?? 0) + params.dot_gain * (coverages[ink] ?? 0) * (1 - (coverages[ink] ?? 0)) * 4),
        );
        if (screen === undefined || coverage <= 0.01) continue;
        const a = u * screen.cos + v * screen.sin;
        const c = -u * screen.sin + v * screen.cos;
        // Euclidean-dot spot function: ink where it exceeds the threshold that gives this coverage.
        const spot = (cosTurns(a) + cosTurns(c)) / 2;
        if (spot <= 1 - 2 * coverage) continue;
        for (let channel = 0; channel < 3; channel += 1) {
          reflectance[channel] = (reflectance[channel] ?? 1) * (1 - params.ink_density * (screen.absorbs[channel] ?? 0));
        }
      }
      const offset = (y * hiRes.width + x) * 3;
      for (let channel = 0; channel < 3; channel += 1)
        hiRes.data[offset + channel] = (params.paper[channel] ?? 255) * (reflectance[channel] ?? 1);
    }
  }
  const image = throughCamera(hiRes, params.optics_sigma, width, height);
  return { image, contentToPhoto };
}
