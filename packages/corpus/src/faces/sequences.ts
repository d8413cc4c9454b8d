import sharp from 'sharp';
import { addSensorNoise } from '../photo';
import { Random } from '../random';
import { createRgbImage, encodeJpeg, fromUint8Rgb, gaussianBlurFloat, resizeRgb, type RgbImage } from '../raster';
import { homographyFromQuads, invertHomography, projectPlane, rectQuad, type Quad } from '../geometry';
import {
  drawPrintParameters,
  drawScreenParameters,
  recaptureFromPrint,
  recaptureFromScreen,
  type ScreenRecapture,
} from '../recapture';
import { FACE_SOURCE_WIDTH, FACE_SOURCES, FACE_TRIANGLES, headTilt, type FaceSource } from './sources';

const { abs, cos, exp, floor, fround, hypot, log, max, min, PI, pow, round, sin } = Math;

/**
 * Face sequences for the liveness challenge, from the source faces (sources.ts), reproducible from a
 * seed: sequence `i` of a seed is the same bytes whatever the count, like the document corpus.
 *
 * A live sequence is what the page uploads: 480×640 frames (a phone's front camera, portrait, as the
 * camera saw it, not mirrored), `framesPerStep` frames a pose, in the challenge's random order, each
 * under its own light, blur, noise and JPEG. Attacks are made from the same frames.
 *
 * Turning a head. A planar warp (perspective or affine, as a card turns) moves no landmark in depth,
 * and the model reads it as the same pose: measured on six frontal faces, perspective turns of 20° and
 * 35° changed the reported yaw by at most 5° (docs/faces.md). Turns here are therefore a 3-D warp: the
 * model's own 468-point mesh of the face is rotated about the vertical axis and each triangle of the
 * face is re-drawn where the rotated mesh projects it (painter's order, far triangles first). Hair, ears
 * and the head's outline do not turn with it, which a person would see; the model reports about half
 * the mesh rotation as yaw. This tests the pipeline and the thresholds; how the model reads real turned
 * heads is for real footage to show.
 */
export const FACE_FRAME = { width: 480, height: 640 } as const;

/**
 * Bumped whenever the same seed and index would give other bytes: the benchmark keeps generated
 * sequences in a folder named after it, so it never mixes two generators' frames. 2: upright framing,
 * the smooth warp capped by each face's measured response, no neighbours, realistic screen replays. 3: the
 * neighbours' hiding stops at the subject's own face (its mesh's outline), with a soft edge (`framedFace`).
 */
export const FACE_CORPUS_VERSION = 3;

export const FACE_SEQUENCE_KINDS = ['live', 'screen', 'print', 'still', 'swap'] as const;
export type FaceSequenceKind = (typeof FACE_SEQUENCE_KINDS)[number];

export type FacePose = 'straight' | 'left' | 'right';
const POSES: readonly FacePose[] = ['straight', 'left', 'right'];

/** What a correct verdict says of each kind. `refused` is any refusal: which check catches it is measured. */
export const EXPECTED_VERDICT: Record<FaceSequenceKind, 'passed' | 'refused'> = {
  live: 'passed',
  screen: 'refused',
  print: 'refused',
  still: 'refused',
  swap: 'refused',
};

export interface FaceFrameLabel {
  /** Milliseconds since the page showed the challenge. */
  atMs: number;
  /** The pose the frame was made to show (for a print: the way the paper was tilted). */
  pose: FacePose;
  /** Whose face it shows. */
  identity: string;
  /** Whether the photo was used mirrored (the same person, turned the other way). */
  mirrored: boolean;
  /** The mesh rotation (degrees; positive turns the person to their right). */
  rotationDeg: number;
  /** Face height as a fraction of the frame's width. */
  faceScale: number;
  lighting: { gain: number; gamma: number; warmth: number };
  blurSigma: number;
  noiseSigma: number;
  jpegQuality: number;
}

export interface FaceSequenceLabel {
  id: string;
  seed: number;
  index: number;
  kind: FaceSequenceKind;
  identity: string;
  /** The challenge the sequence answers (a print, a still and a swap answer it too, or try to). */
  steps: FacePose[];
  expected: 'passed' | 'refused';
  /** For `swap`: the identity whose frames replace the second pose's. */
  swapIdentity: string | null;
  /** For `screen` and `print`: the recapture's parameters. */
  recapture: Record<string, unknown> | null;
  frames: FaceFrameLabel[];
}

export interface FaceSequence {
  label: FaceSequenceLabel;
  frames: Buffer[];
}

export interface FaceCorpusOptions {
  seed: number;
  /** The demo photo's bytes by name (`sample1.jpg` …): the caller knows where node_modules put them. */
  readPhoto: (name: FaceSource['photo']) => Buffer;
  framesPerStep?: number;
  /** Time between two frames of one pose. */
  frameIntervalMs?: number;
}

/** Which kind and which person sequence `index` is: every kind of every person who can make a live sequence, person-major. */
export function faceAssignment(index: number): { kind: FaceSequenceKind; source: FaceSource } {
  const kind = FACE_SEQUENCE_KINDS[index % FACE_SEQUENCE_KINDS.length] as FaceSequenceKind;
  const source = LIVE_FACE_SOURCES[floor(index / FACE_SEQUENCE_KINDS.length) % LIVE_FACE_SOURCES.length] as FaceSource;
  return { kind, source };
}

interface RawImage {
  data: Buffer;
  width: number;
  height: number;
}

const photoCache = new Map<string, Promise<RawImage>>();

function sourcePhoto(options: FaceCorpusOptions, name: FaceSource['photo'], mirrored: boolean): Promise<RawImage> {
  const key = `${name}${mirrored ? '/mirrored' : ''}`;
  let cached = photoCache.get(key);
  if (cached === undefined) {
    let image = sharp(options.readPhoto(name)).rotate().resize(FACE_SOURCE_WIDTH).removeAlpha();
    if (mirrored) image = image.flop();
    cached = image
      .raw()
      .toBuffer({ resolveWithObject: true })
      .then(({ data, info }) => ({ data, width: info.width, height: info.height }));
    photoCache.set(key, cached);
  }
  return cached;
}

/** A source seen in a mirror: the same person turned the other way (yaw changes sign). */
interface PosedSource extends FaceSource {
  mirrored: boolean;
}

function posed(source: FaceSource, mirrored: boolean): PosedSource {
  if (!mirrored) return { ...source, mirrored };
  const [x, y, width, height] = source.box;
  return {
    ...source,
    mirrored,
    box: [FACE_SOURCE_WIDTH - x - width, y, width, height],
    pose: { yaw: -source.pose.yaw, pitch: source.pose.pitch, roll: -source.pose.roll },
    mesh: source.mesh.map(([mx, my, mz]) => [FACE_SOURCE_WIDTH - mx, my, mz] as const),
  };
}

/** One channel of an RGB image (bytes or floats) at a fractional pixel position, bilinearly. */
function bilinear(
  source: { data: ArrayLike<number>; width: number; height: number },
  x: number,
  y: number,
  channel: number,
): number {
  const fx = min(source.width - 1.001, max(0, x - 0.5));
  const fy = min(source.height - 1.001, max(0, y - 0.5));
  const x0 = floor(fx);
  const y0 = floor(fy);
  const tx = fx - x0;
  const ty = fy - y0;
  const offset = (y0 * source.width + x0) * 3 + channel;
  const row = source.width * 3;
  const d = source.data;
  return (
    ((d[offset] ?? 0) * (1 - tx) + (d[offset + 3] ?? 0) * tx) * (1 - ty) +
    ((d[offset + row] ?? 0) * (1 - tx) + (d[offset + row + 3] ?? 0) * tx) * ty
  );
}

interface Framing {
  /** Frame pixel = scale · R(roll) · (source pixel − centre) + anchor. */
  scale: number;
  rollRad: number;
  centreX: number;
  centreY: number;
  anchorX: number;
  anchorY: number;
}

function toFrame(framing: Framing, x: number, y: number): [number, number] {
  const dx = x - framing.centreX;
  const dy = y - framing.centreY;
  const c = cos(framing.rollRad);
  const s = sin(framing.rollRad);
  return [framing.scale * (c * dx - s * dy) + framing.anchorX, framing.scale * (s * dx + c * dy) + framing.anchorY];
}

function toSource(framing: Framing, x: number, y: number): [number, number] {
  const dx = (x - framing.anchorX) / framing.scale;
  const dy = (y - framing.anchorY) / framing.scale;
  const c = cos(-framing.rollRad);
  const s = sin(-framing.rollRad);
  return [c * dx - s * dy + framing.centreX, s * dx + c * dy + framing.centreY];
}

/** The subject's own face, in units of its box height: the ellipse the framing keeps sharp (alpha 1 inside 0.85). */
const OWN_FACE = { rx: 0.55, ry: 0.85, dy: 0.05 } as const;
/** Neighbours are hidden everywhere but the subject's own face: its mesh's outline, grown this much about its centre. */
const OWN_MESH_GROWTH = 1.08;
/** The hiding's edge, as a blur of this much of the face's size. */
const NEIGHBOUR_EDGE = 0.03;

/** The convex outline of points (Andrew's monotone chain), counter-clockwise in image coordinates' sense. */
function convexHull(points: readonly (readonly [number, number])[]): [number, number][] {
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o: readonly [number, number], a: readonly [number, number], b: readonly [number, number]) =>
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list: (readonly [number, number])[]) => {
    const out: [number, number][] = [];
    for (const point of list) {
      while (
        out.length >= 2 &&
        cross(out[out.length - 2] as [number, number], out[out.length - 1] as [number, number], point) <= 0
      )
        out.pop();
      out.push([point[0], point[1]]);
    }
    out.pop();
    return out;
  };
  return [...half(sorted), ...half([...sorted].reverse())];
}

function insideConvex(hull: readonly [number, number][], x: number, y: number): boolean {
  for (let index = 0; index < hull.length; index += 1) {
    const a = hull[index] as [number, number];
    const b = hull[(index + 1) % hull.length] as [number, number];
    if ((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]) < 0) return false;
  }
  return true;
}

/**
 * The face framed as a front camera frames it, the rest of the photo behind a shallow depth of field:
 * the demo photos are group photos, and a neighbour's face in the frame would make it a two-face frame.
 * Neighbours (1.4× their box) show only the blurred background, except over the subject's own face (its
 * mesh's outline, grown 8%), with a soft edge: version 2 hid the whole box, which cut a hard-edged blurred
 * rectangle into up to a quarter of the face of 7 of the 22 people (heads close together in the group
 * photos) and took their identity with it (different people's selfies and portraits up to 0.76).
 */
async function framedFace(photo: RawImage, source: PosedSource, framing: Framing): Promise<RawImage> {
  const { width, height } = FACE_FRAME;
  const sharpFrame = Buffer.alloc(width * height * 3);
  const neighbours = FACE_SOURCES.filter((other) => other.photo === source.photo && other.id !== source.id).map((other) => {
    const [x, y, w, h] = other.box;
    const left = source.mirrored ? FACE_SOURCE_WIDTH - x - w : x;
    return [left - 0.2 * w, y - 0.2 * h, left + 1.2 * w, y + 1.2 * h] as const;
  });
  const [faceX, faceY] = toFrame(framing, source.box[0] + source.box[2] / 2, source.box[1] + source.box[3] / 2);
  const faceSize = source.box[3] * framing.scale;
  const ownDistance = (x: number, y: number) =>
    hypot((x - faceX) / (OWN_FACE.rx * faceSize), (y - faceY - OWN_FACE.dy * faceSize) / (OWN_FACE.ry * faceSize));
  const outline = convexHull(source.mesh.map(([mx, my]) => toFrame(framing, mx, my)));
  const [centreX, centreY] = [
    outline.reduce((sum, point) => sum + point[0], 0) / outline.length,
    outline.reduce((sum, point) => sum + point[1], 0) / outline.length,
  ];
  const ownFace = outline.map(
    ([x, y]) => [centreX + (x - centreX) * OWN_MESH_GROWTH, centreY + (y - centreY) * OWN_MESH_GROWTH] as [number, number],
  );
  const hidden = Buffer.alloc(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const [u, v] = toSource(framing, x + 0.5, y + 0.5);
      for (let channel = 0; channel < 3; channel += 1) sharpFrame[(y * width + x) * 3 + channel] = bilinear(photo, u, v, channel);
      if (
        !insideConvex(ownFace, x + 0.5, y + 0.5) &&
        neighbours.some(([x0, y0, x1, y1]) => u >= x0 && u <= x1 && v >= y0 && v <= y1)
      )
        hidden[y * width + x] = 255;
    }
  }
  const [background, softHidden] = await Promise.all([
    sharp(sharpFrame, { raw: { width, height, channels: 3 } })
      .blur(30)
      .raw()
      .toBuffer(),
    neighbours.length === 0
      ? Promise.resolve(hidden)
      : sharp(hidden, { raw: { width, height, channels: 1 } })
          .blur(max(0.3, NEIGHBOUR_EDGE * faceSize))
          // sharp hands back three channels from a one-channel blur: keep one.
          .extractChannel(0)
          .raw()
          .toBuffer(),
  ]);
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const shown = 1 - (softHidden[y * width + x] ?? 0) / 255;
      const alpha = shown * min(1, max(0, (1.1 - ownDistance(x, y)) / 0.25));
      for (let channel = 0; channel < 3; channel += 1) {
        const offset = (y * width + x) * 3 + channel;
        out[offset] = (sharpFrame[offset] ?? 0) * alpha + (background[offset] ?? 0) * (1 - alpha);
      }
    }
  }
  return { data: out, width, height };
}

/** How deep the mesh's z is taken, relative to x and y: 2.5 gave the model's yaw about half the rotation. */
const DEPTH_SCALE = 2.5;
/** The coarse grid the displacement around the face is computed on (pixels), then interpolated. */
const FIELD_STEP = 8;

/**
 * The 3-D turn: the face's mesh rotated by `degrees` about the vertical axis, triangle by triangle, as a
 * backward map (each frame pixel looks up where it came from). Inside the turned mesh the triangles
 * decide (painter's order, far triangles first). Around it the displacement of the nearby mesh points
 * carries on and fades out over about a third of the face, so the hair and the cheek beside the face
 * stretch or compress with it: a forward warp that left the untouched pixels in place showed the face's
 * old edge beside its new one, a second partial face (`face_multiple` on 3 of 8 live sequences, seed 11)
 * or a torn one (`no face`).
 */
function turnFace(frame: RawImage, source: PosedSource, framing: Framing, degrees: number): RawImage {
  if (degrees === 0) return frame;
  const theta = (degrees * PI) / 180;
  const c = cos(theta);
  const s = sin(theta);
  const from = source.mesh.map(([x, y, z]) => {
    const [fx, fy] = toFrame(framing, x, y);
    return [fx, fy, z * framing.scale * DEPTH_SCALE] as const;
  });
  const centreX = from.reduce((sum, point) => sum + point[0], 0) / from.length;
  const centreZ = from.reduce((sum, point) => sum + point[2], 0) / from.length;
  // Positive degrees turn the person to their own right: the nose (nearest, most negative z) moves
  // towards the image's left.
  const to = from.map(([x, y, z]) => {
    const dx = x - centreX;
    const dz = z - centreZ;
    return [centreX + dx * c + dz * s, y, -dx * s + dz * c] as const;
  });
  const { width, height } = frame;
  const mapX = new Float32Array(width * height);
  const mapY = new Float32Array(width * height);

  // Around the face: inverse-distance weighted displacement of the mesh points, fading with the
  // distance to the nearest one.
  const faceSize = source.box[3] * framing.scale;
  const fade = 0.35 * faceSize;
  const gridWidth = Math.ceil(width / FIELD_STEP) + 1;
  const gridHeight = Math.ceil(height / FIELD_STEP) + 1;
  const fieldX = new Float32Array(gridWidth * gridHeight);
  const fieldY = new Float32Array(gridWidth * gridHeight);
  for (let gy = 0; gy < gridHeight; gy += 1) {
    for (let gx = 0; gx < gridWidth; gx += 1) {
      const px = gx * FIELD_STEP;
      const py = gy * FIELD_STEP;
      let sumX = 0;
      let sumY = 0;
      let sumW = 0;
      let nearest = Infinity;
      for (let vertex = 0; vertex < to.length; vertex += 1) {
        const target = to[vertex];
        const origin = from[vertex];
        if (target === undefined || origin === undefined) continue;
        const d2 = (px - target[0]) ** 2 + (py - target[1]) ** 2;
        nearest = min(nearest, d2);
        const weight = 1 / (d2 * d2 + 1);
        sumX += weight * (origin[0] - target[0]);
        sumY += weight * (origin[1] - target[1]);
        sumW += weight;
      }
      const strength = Math.exp(-nearest / (fade * fade));
      fieldX[gy * gridWidth + gx] = (strength * sumX) / sumW;
      fieldY[gy * gridWidth + gx] = (strength * sumY) / sumW;
    }
  }
  for (let y = 0; y < height; y += 1) {
    const gy = y / FIELD_STEP;
    const y0 = floor(gy);
    const ty = gy - y0;
    for (let x = 0; x < width; x += 1) {
      const gx = x / FIELD_STEP;
      const x0 = floor(gx);
      const tx = gx - x0;
      const at = (grid: Float32Array) =>
        ((grid[y0 * gridWidth + x0] ?? 0) * (1 - tx) + (grid[y0 * gridWidth + x0 + 1] ?? 0) * tx) * (1 - ty) +
        ((grid[(y0 + 1) * gridWidth + x0] ?? 0) * (1 - tx) + (grid[(y0 + 1) * gridWidth + x0 + 1] ?? 0) * tx) * ty;
      mapX[y * width + x] = x + 0.5 + at(fieldX);
      mapY[y * width + x] = y + 0.5 + at(fieldY);
    }
  }

  const triangles: [number, number, number][] = [];
  for (let index = 0; index + 2 < FACE_TRIANGLES.length; index += 3)
    triangles.push([FACE_TRIANGLES[index] ?? 0, FACE_TRIANGLES[index + 1] ?? 0, FACE_TRIANGLES[index + 2] ?? 0]);
  const depth = (triangle: [number, number, number]) => triangle.reduce((sum, vertex) => sum + (to[vertex]?.[2] ?? 0), 0);
  // Far (larger z) first, so that nearer triangles cover them.
  triangles.sort((a, b) => depth(b) - depth(a));
  for (const [ia, ib, ic] of triangles) {
    const a = to[ia];
    const b = to[ib];
    const cc = to[ic];
    const sa = from[ia];
    const sb = from[ib];
    const sc = from[ic];
    if (!a || !b || !cc || !sa || !sb || !sc) continue;
    const det = (b[0] - a[0]) * (cc[1] - a[1]) - (cc[0] - a[0]) * (b[1] - a[1]);
    if (abs(det) < 1e-6) continue;
    const x0 = max(0, floor(min(a[0], b[0], cc[0])));
    const x1 = min(width - 1, Math.ceil(max(a[0], b[0], cc[0])));
    const y0 = max(0, floor(min(a[1], b[1], cc[1])));
    const y1 = min(height - 1, Math.ceil(max(a[1], b[1], cc[1])));
    for (let y = y0; y <= y1; y += 1) {
      for (let x = x0; x <= x1; x += 1) {
        const px = x + 0.5;
        const py = y + 0.5;
        const l1 = ((px - a[0]) * (cc[1] - a[1]) - (cc[0] - a[0]) * (py - a[1])) / det;
        const l2 = ((b[0] - a[0]) * (py - a[1]) - (px - a[0]) * (b[1] - a[1])) / det;
        const l0 = 1 - l1 - l2;
        if (l0 < -0.01 || l1 < -0.01 || l2 < -0.01) continue;
        mapX[y * width + x] = l0 * sa[0] + l1 * sb[0] + l2 * sc[0];
        mapY[y * width + x] = l0 * sa[1] + l1 * sb[1] + l2 * sc[1];
      }
    }
  }
  const out = Buffer.alloc(width * height * 3);
  for (let pixel = 0; pixel < width * height; pixel += 1) {
    const u = mapX[pixel] ?? 0;
    const v = mapY[pixel] ?? 0;
    for (let channel = 0; channel < 3; channel += 1) out[pixel * 3 + channel] = bilinear(frame, u, v, channel);
  }
  return { data: out, width, height };
}

function toFloat(image: RawImage): RgbImage {
  const out = createRgbImage(image.width, image.height);
  for (let index = 0; index < image.data.length; index += 1) out.data[index] = image.data[index] ?? 0;
  return out;
}

/** Light (gain, gamma, warmth), then the camera: blur, noise, JPEG. */
async function camera(
  random: Random,
  image: RgbImage,
  label: Pick<FaceFrameLabel, 'lighting' | 'blurSigma' | 'noiseSigma' | 'jpegQuality'>,
): Promise<Buffer> {
  const { gain, gamma, warmth } = label.lighting;
  const channelGain = [gain * (1 + warmth), gain, gain * (1 - warmth)];
  const data = image.data;
  for (let index = 0; index < data.length; index += 1) {
    const value = max(0, data[index] ?? 0) / 255;
    data[index] = 255 * pow(value, gamma) * (channelGain[index % 3] ?? 1);
  }
  let blurred = image;
  if (label.blurSigma >= 0.3) {
    const clamped = Buffer.alloc(data.length);
    for (let index = 0; index < data.length; index += 1) clamped[index] = min(255, max(0, round(data[index] ?? 0)));
    const raw = await sharp(clamped, { raw: { width: image.width, height: image.height, channels: 3 } })
      .blur(label.blurSigma)
      .raw()
      .toBuffer();
    blurred = toFloat({ data: raw, width: image.width, height: image.height });
  }
  addSensorNoise(random, blurred, label.noiseSigma);
  return encodeJpeg(blurred, label.jpegQuality);
}

function drawCamera(random: Random): Pick<FaceFrameLabel, 'lighting' | 'blurSigma' | 'noiseSigma' | 'jpegQuality'> {
  const dim = random.chance(0.25);
  return {
    lighting: {
      gain: dim ? random.uniform(0.45, 0.7) : random.uniform(0.85, 1.15),
      gamma: dim ? random.uniform(1.1, 1.4) : random.uniform(0.9, 1.1),
      warmth: random.uniform(-0.08, 0.08),
    },
    blurSigma: random.chance(0.3) ? random.uniform(1, 2.2) : random.uniform(0, 0.8),
    noiseSigma: dim ? random.uniform(3, 7) : random.uniform(1, 3),
    jpegQuality: random.int(60, 92),
  };
}

/** Below this similarity to the unturned face, a turn has torn the face or lost its identity. */
const TURN_MIN_SIMILARITY = 0.62;
/** What a turn aims at (model yaw, degrees): a clear turn, as the page's hint asks for, above the 22° band. */
const TURN_TARGET = [27, 34] as const;
/** Straight aims within this (the band is ±12°). */
const STRAIGHT_TARGET = 5;
/** Turns read below this on the clean render are too close to 22° once light, blur and JPEG move the model's reading. */
const TURN_MIN_REACH = 24;
/** Straight must be reachable within this on the clean render. */
const STRAIGHT_MAX_REACH = 7;

interface TurnPoint {
  rotation: number;
  yaw: number;
}

/**
 * The measured response (`FaceSource.turnResponse`) of the source as seen (mirrored or not), only the
 * rotations up to where the face or its identity was first lost on either side. A mirrored photo turned
 * one way is the original turned the other: rotation and yaw change sign.
 */
function responseCurve(source: FaceSource, mirrored: boolean): TurnPoint[] {
  const points = [...(source.turnResponse ?? [])]
    .map((point) => ({
      rotation: mirrored ? -point.rotationDeg : point.rotationDeg,
      yaw: point.yaw === null ? null : mirrored ? -point.yaw : point.yaw,
      ok: point.yaw !== null && (point.similarity ?? 0) >= TURN_MIN_SIMILARITY,
    }))
    .sort((a, b) => a.rotation - b.rotation);
  const zero = points.findIndex((point) => point.rotation === 0);
  if (zero < 0 || !points[zero]?.ok) return [];
  let first = zero;
  let last = zero;
  while (points[first - 1]?.ok) first -= 1;
  while (points[last + 1]?.ok) last += 1;
  return points.slice(first, last + 1).map((point) => ({ rotation: point.rotation, yaw: point.yaw ?? 0 }));
}

/** The rotation (1° steps, within the measured curve) whose interpolated yaw is nearest `target`. */
function rotationFor(curve: TurnPoint[], target: number): TurnPoint | null {
  let best: TurnPoint | null = null;
  for (let index = 0; index + 1 < curve.length; index += 1) {
    const a = curve[index] as TurnPoint;
    const b = curve[index + 1] as TurnPoint;
    for (let rotation = a.rotation; rotation <= b.rotation; rotation += 1) {
      const yaw = a.yaw + ((b.yaw - a.yaw) * (rotation - a.rotation)) / (b.rotation - a.rotation);
      const better =
        best === null ||
        abs(yaw - target) < abs(best.yaw - target) - 0.5 ||
        (abs(yaw - target) < abs(best.yaw - target) + 0.5 && abs(rotation) < abs(best.rotation));
      if (better) best = { rotation, yaw };
    }
  }
  return best;
}

/** Of the photo and its mirror, the one that shows `target` best, with the smaller warp when both do. */
function bestTurn(source: FaceSource, target: number): { mirrored: boolean; rotation: number; yaw: number } | null {
  const options = [false, true].flatMap((mirrored) => {
    const point = rotationFor(responseCurve(source, mirrored), target);
    return point === null ? [] : [{ mirrored, ...point }];
  });
  return options.reduce<(typeof options)[number] | null>((a, b) => {
    if (a === null) return b;
    const [ea, eb] = [abs(a.yaw - target), abs(b.yaw - target)];
    if (abs(ea - eb) > 1) return eb < ea ? b : a;
    return abs(b.rotation) < abs(a.rotation) ? b : a;
  }, null);
}

/**
 * Whether a source can make a live sequence, from its measured response: a turn each way read at
 * ≥ `TURN_MIN_REACH`° and a straight pose within `STRAIGHT_MAX_REACH`°, without tearing. `reason` says
 * what it lacks.
 */
export function liveEligibility(source: FaceSource): { eligible: boolean; reason: string | null } {
  const left = bestTurn(source, -TURN_TARGET[1]);
  const right = bestTurn(source, TURN_TARGET[1]);
  const straight = bestTurn(source, 0);
  const problems: string[] = [];
  if (straight === null || abs(straight.yaw) > STRAIGHT_MAX_REACH)
    problems.push(`straight reads ${straight === null ? 'no face' : `${straight.yaw.toFixed(1)}°`} at best`);
  if (left === null || left.yaw > -TURN_MIN_REACH)
    problems.push(`left reaches ${left === null ? 'no face' : `${left.yaw.toFixed(1)}°`} before the warp tears`);
  if (right === null || right.yaw < TURN_MIN_REACH)
    problems.push(`right reaches ${right === null ? 'no face' : `${right.yaw.toFixed(1)}°`} before the warp tears`);
  return { eligible: problems.length === 0, reason: problems.length === 0 ? null : problems.join('; ') };
}

/** The people live sequences (and the attacks made from them) are drawn from; docs/faces.md lists the others and why. */
export const LIVE_FACE_SOURCES: readonly FaceSource[] = FACE_SOURCES.filter((source) => liveEligibility(source).eligible);

/**
 * Which way the photo is used and how far its mesh is turned to show `pose`: a turn aims at 28–35° of
 * model yaw, straight at ±5°, through the face's measured response (a linear yaw-per-degree missed by up
 * to 10°: faces answer the warp non-linearly and differently each way); no rotation goes past where the
 * measured face tore or lost its identity.
 */
function poseFor(random: Random, source: FaceSource, pose: FacePose): { source: PosedSource; rotationDeg: number } {
  const target =
    pose === 'straight'
      ? random.uniform(-STRAIGHT_TARGET, STRAIGHT_TARGET)
      : (pose === 'right' ? 1 : -1) * random.uniform(TURN_TARGET[0], TURN_TARGET[1]);
  const best = bestTurn(source, target) ?? { mirrored: false, rotation: 0 };
  return { source: posed(source, best.mirrored), rotationDeg: best.rotation };
}

/**
 * Live frames are framed upright (`upright`); the match pairs' selfies and portraits keep the photo's own
 * tilt, as the face-match calibration measured them (docs/faces.md "Thresholds").
 */
function drawFraming(random: Random, source: PosedSource, upright = true): Framing & { faceScale: number } {
  const faceScale = random.uniform(0.42, 0.55);
  const scale = (faceScale * FACE_FRAME.width) / source.box[3];
  return {
    faceScale: round(faceScale * 1000) / 1000,
    scale,
    // Upright, as a person facing their phone holds their head, give or take a few degrees.
    rollRad: (upright ? headTilt(source.mesh) : 0) + (random.uniform(-4, 4) * PI) / 180,
    centreX: source.box[0] + source.box[2] / 2,
    centreY: source.box[1] + source.box[3] / 2,
    anchorX: FACE_FRAME.width / 2 + random.uniform(-0.05, 0.05) * FACE_FRAME.width,
    anchorY: FACE_FRAME.height * 0.45 + random.uniform(-0.04, 0.04) * FACE_FRAME.height,
  };
}

/** One frame of `source` showing `pose`, with its label; the framing drifts a little from frame to frame as a hand-held phone does. */
async function liveFrame(
  options: FaceCorpusOptions,
  random: Random,
  source: FaceSource,
  pose: FacePose,
  atMs: number,
): Promise<{ pixels: RgbImage; label: FaceFrameLabel }> {
  const { source: seen, rotationDeg } = poseFor(random, source, pose);
  const framing = drawFraming(random, seen);
  const photo = await sourcePhoto(options, seen.photo, seen.mirrored);
  const framed = await framedFace(photo, seen, framing);
  const turned = turnFace(framed, seen, framing, rotationDeg);
  return {
    pixels: toFloat(turned),
    label: {
      atMs,
      pose,
      identity: source.id,
      mirrored: seen.mirrored,
      rotationDeg,
      faceScale: framing.faceScale,
      ...drawCamera(random),
    },
  };
}

/**
 * The replaying screen as the verifying phone sees it, held at arm's length in front of a phone, tablet
 * or laptop playing the recording: 0.45–1.2 camera pixels per screen pixel for 60% of replays (the
 * screen finer than the camera: a phone's 400 ppi or a laptop's 150 ppi at 25–40 cm), 1.2–2.5 for the
 * rest (a low-resolution screen, or held close). The screen fills the frame or nearly (its edge shows
 * when it does not), turned by up to 12°. Tone, colour, glare and reflection as the document corpus
 * draws them.
 */
function drawFaceScreen(random: Random): ScreenRecapture & { fine: boolean } {
  const base = drawScreenParameters(random);
  const fine = random.chance(0.6);
  return {
    ...base,
    fine,
    pixel_pitch_px: fine ? exp(random.uniform(log(0.45), log(1.2))) : exp(random.uniform(log(1.2), log(2.5))),
    coverage: random.uniform(0.92, 1.3),
    yaw_deg: random.uniform(-12, 12),
    pitch_deg: random.uniform(-12, 12),
    rotation_deg: random.uniform(-6, 6),
  };
}

/** Corners of the screen in the frame: the screen's aspect, turned, scaled to its coverage, offset. */
function screenCorners(params: ScreenRecapture, screenWidth: number, screenHeight: number): Quad {
  const { width, height } = FACE_FRAME;
  const projected = projectPlane(
    screenWidth,
    screenHeight,
    { yawDeg: params.yaw_deg, pitchDeg: params.pitch_deg, rollDeg: params.rotation_deg },
    screenWidth * 3,
  );
  const xs = projected.map((point) => point[0]);
  const ys = projected.map((point) => point[1]);
  const scale = (params.coverage * width) / (max(...xs) - min(...xs));
  const centreX = (max(...xs) + min(...xs)) / 2;
  const centreY = (max(...ys) + min(...ys)) / 2;
  const slackX = abs(width - (max(...xs) - min(...xs)) * scale) / 2;
  const slackY = abs(height - (max(...ys) - min(...ys)) * scale) / 2;
  return projected.map(([x, y]) => [
    (x - centreX) * scale + width / 2 + params.offset_x * slackX,
    (y - centreY) * scale + height / 2 + params.offset_y * slackY,
  ]) as unknown as Quad;
}

/**
 * A screen whose pixels are finer than the camera's (pitch under 1.2 camera pixels): the optics blur its
 * red, green and blue stripes into the pixel's colour long before the sensor samples them (at the stripe
 * frequency, 2.5+ cycles a pixel, a lens of sigma 0.4 px passes under 1e-5 of the contrast), so it is
 * drawn as what the camera integrates: the screen's pixels, in the display's tone and colour, its glare
 * and reflection, the bezel where the screen does not fill the frame, then the optics. (Rendering the
 * stripes point-sampled at this pitch would alias into a moiré no lens lets through.)
 */
async function filmFineScreen(content: RgbImage, params: ScreenRecapture): Promise<RgbImage> {
  const { width, height } = FACE_FRAME;
  const screenWidth = max(16, round((width * params.coverage) / params.pixel_pitch_px));
  const screenHeight = max(12, round((screenWidth * content.height) / content.width));
  const shown = await resizeRgb(content, screenWidth, screenHeight);
  const emitted = new Float32Array(screenWidth * screenHeight * 3);
  for (let index = 0; index < screenWidth * screenHeight; index += 1) {
    const [r, g, b] = [0, 1, 2].map((channel) => (shown.data[index * 3 + channel] ?? 0) / 255) as [number, number, number];
    const luma = 0.299 * r + 0.587 * g + 0.114 * b;
    for (const [channel, value] of [r, g, b].entries()) {
      const saturated = min(1, max(0, luma + (value - luma) * params.saturation));
      const tone = pow(saturated, params.display_gamma) * (params.white_point[channel] ?? 1);
      emitted[index * 3 + channel] = 255 * (params.black_level + (1 - params.black_level) * tone);
    }
  }
  const screen: RgbImage = { width: screenWidth, height: screenHeight, data: emitted };
  const corners = screenCorners(params, screenWidth, screenHeight);
  const toScreen = invertHomography(homographyFromQuads(rectQuad(0, 0, screenWidth, screenHeight), corners));
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = toScreen;
  const out = createRgbImage(width, height);
  const reflection = params.reflection;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const offset = (y * width + x) * 3;
      // 2×2 samples a pixel: the screen's edge is antialiased as a lens would.
      for (let sample = 0; sample < 4; sample += 1) {
        const px = x + 0.25 + 0.5 * (sample % 2);
        const py = y + 0.25 + 0.5 * floor(sample / 2);
        const w = h6 * px + h7 * py + h8;
        const u = (h0 * px + h1 * py + h2) / w;
        const v = (h3 * px + h4 * py + h5) / w;
        if (u < 0 || v < 0 || u >= screenWidth || v >= screenHeight) {
          // The bezel: dark, slightly reflective plastic.
          for (let channel = 0; channel < 3; channel += 1)
            out.data[offset + channel] = (out.data[offset + channel] ?? 0) + 4.5 / 4;
          continue;
        }
        let light = params.veiling_glare;
        if (reflection !== null) {
          const a = (u / screenWidth - reflection.cx) / reflection.rx;
          const b = (v / screenHeight - reflection.cy) / reflection.ry;
          light += 255 * reflection.strength * exp(-(a * a + b * b) * 1.5);
        }
        // fround: the sample as a float32, as the images of this corpus version were made.
        for (let channel = 0; channel < 3; channel += 1)
          out.data[offset + channel] = (out.data[offset + channel] ?? 0) + (fround(bilinear(screen, u, v, channel)) + light) / 4;
      }
    }
  }
  return gaussianBlurFloat(out, max(0.3, params.optics_sigma));
}

/** A JPEG back to pixels: the recording the screen replays is what the first phone's camera wrote. */
async function decodeJpeg(bytes: Buffer): Promise<RgbImage> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return fromUint8Rgb(data, info.width, info.height);
}

/** The verifying phone's camera pointed at a screen: it exposes for the screen's own light, so the room's barely matters. */
function drawScreenCamera(random: Random): Pick<FaceFrameLabel, 'lighting' | 'blurSigma' | 'noiseSigma' | 'jpegQuality'> {
  const drawn = drawCamera(random);
  return {
    ...drawn,
    lighting: { gain: random.uniform(0.9, 1.1), gamma: random.uniform(0.95, 1.05), warmth: random.uniform(-0.03, 0.03) },
  };
}

function frameTimes(random: Random, steps: number, framesPerStep: number, intervalMs: number): number[] {
  const times: number[] = [];
  let at = random.int(400, 900);
  for (let step = 0; step < steps; step += 1) {
    for (let frame = 0; frame < framesPerStep; frame += 1) {
      times.push(at);
      at += intervalMs + random.int(-30, 30);
    }
    // Turning from one pose to the next.
    at += random.int(300, 700);
  }
  return times;
}

function shuffled(random: Random): FacePose[] {
  const steps = [...POSES];
  for (let index = steps.length - 1; index > 0; index -= 1) {
    const other = random.int(0, index);
    [steps[index], steps[other]] = [steps[other] as FacePose, steps[index] as FacePose];
  }
  return steps;
}

/**
 * One frame of a source, framed and turned but without light or camera effects: what
 * bench/faces/sources.mjs measures each source's yaw response on.
 */
export async function renderFaceFrame(
  options: FaceCorpusOptions,
  sourceIndex: number,
  turn: { mirrored: boolean; rotationDeg: number },
): Promise<Buffer> {
  const source = FACE_SOURCES[sourceIndex];
  if (source === undefined) throw new Error(`no face source ${sourceIndex}`);
  const seen = posed(source, turn.mirrored);
  const framing = drawFraming(Random.fromKey(`render/${sourceIndex}`), seen);
  const photo = await sourcePhoto(options, seen.photo, seen.mirrored);
  const turned = turnFace(await framedFace(photo, seen, framing), seen, framing, turn.rotationDeg);
  return encodeJpeg(toFloat(turned), 92);
}

/** Sequence `index` of the seed: frames (JPEG) and the label. */
export async function generateFaceSequence(index: number, options: FaceCorpusOptions): Promise<FaceSequence> {
  const framesPerStep = options.framesPerStep ?? 3;
  const intervalMs = options.frameIntervalMs ?? 330;
  const { kind, source } = faceAssignment(index);
  const random = Random.forSample(options.seed, index, 'face-sequence');
  const steps = shuffled(random.fork('steps'));
  const times = frameTimes(random.fork('times'), steps.length, framesPerStep, intervalMs);
  const others = FACE_SOURCES.filter((other) => other.id !== source.id);
  const swapSource = kind === 'swap' ? random.fork('swap').pick(others) : null;
  const frameRandom = random.fork('frames');
  const frames: Buffer[] = [];
  const labels: FaceFrameLabel[] = [];
  let recapture: Record<string, unknown> | null = null;

  if (kind === 'print') {
    // A printed photo cannot turn its head: the attacker tilts the paper the way the challenge asks.
    const printed = await liveFrame(options, frameRandom.fork('photo'), source, 'straight', 0);
    const params = drawPrintParameters(frameRandom.fork('print'));
    recapture = { ...params };
    for (const [position, atMs] of times.entries()) {
      const pose = steps[floor(position / framesPerStep)] ?? 'straight';
      const frameRandomN = frameRandom.fork(`frame-${position}`);
      const tilt = pose === 'straight' ? 0 : (pose === 'right' ? 1 : -1) * frameRandomN.uniform(25, 40);
      const { image } = recaptureFromPrint(
        frameRandomN,
        printed.pixels,
        { ...params, yaw_deg: params.yaw_deg * 0.3 + tilt },
        'grey_desk',
        FACE_FRAME.width,
        FACE_FRAME.height,
      );
      const cameraLabel = drawCamera(frameRandomN);
      frames.push(await camera(frameRandomN, image, cameraLabel));
      labels.push({ ...printed.label, ...cameraLabel, atMs, pose, rotationDeg: tilt });
    }
  } else if (kind === 'still') {
    // A photo held up (or injected) for the whole challenge: the same straight face in every frame.
    const still = await liveFrame(options, frameRandom.fork('photo'), source, 'straight', 0);
    for (const atMs of times) {
      const frameRandomN = frameRandom.fork(`frame-${atMs}`);
      const cameraLabel = drawCamera(frameRandomN);
      frames.push(await camera(frameRandomN, { ...still.pixels, data: Float32Array.from(still.pixels.data) }, cameraLabel));
      labels.push({ ...still.label, ...cameraLabel, atMs });
    }
  } else {
    const screenParams = kind === 'screen' ? drawFaceScreen(frameRandom.fork('screen')) : null;
    if (screenParams !== null) recapture = { ...screenParams };
    for (const [position, atMs] of times.entries()) {
      const step = floor(position / framesPerStep);
      const pose = steps[step] ?? 'straight';
      const who = swapSource !== null && step === 1 ? swapSource : source;
      const frameRandomN = frameRandom.fork(`frame-${position}`);
      const live = await liveFrame(options, frameRandomN, who, pose, atMs);
      if (screenParams === null) {
        frames.push(await camera(frameRandomN, live.pixels, live.label));
        labels.push(live.label);
        continue;
      }
      // A video of the person doing the challenge (recorded by a phone: its light, blur, noise and
      // compression), replayed on a screen held in front of the camera, which shakes a little in the hand.
      const recorded = await decodeJpeg(await camera(frameRandomN, live.pixels, live.label));
      const shake = frameRandomN.fork('shake');
      const held = {
        ...screenParams,
        offset_x: screenParams.offset_x + shake.uniform(-0.08, 0.08),
        offset_y: screenParams.offset_y + shake.uniform(-0.08, 0.08),
        rotation_deg: screenParams.rotation_deg + shake.uniform(-1.5, 1.5),
      };
      const filmed = screenParams.fine
        ? await filmFineScreen(recorded, held)
        : (await recaptureFromScreen(recorded, held, FACE_FRAME.width, FACE_FRAME.height)).image;
      const second = drawScreenCamera(frameRandomN.fork('second-camera'));
      frames.push(await camera(frameRandomN, filmed, second));
      labels.push({ ...live.label, ...second });
    }
  }

  return {
    frames,
    label: {
      id: `f${options.seed}-${String(index).padStart(4, '0')}`,
      seed: options.seed,
      index,
      kind,
      identity: source.id,
      steps,
      expected: EXPECTED_VERDICT[kind],
      swapIdentity: swapSource?.id ?? null,
      recapture,
      frames: labels,
    },
  };
}

/**
 * The face as a document's photo region shows it, for the face-match pairs: a frontal crop at ID-photo
 * size (face about 90–120 px high), desaturated and flattened as print and lamination do, a little blur,
 * JPEG. An altered copy of the same photo the live frames come from: a same-person pair made with it is
 * easier than two real photos of one person.
 */
export async function documentPortrait(sourceIndex: number, options: FaceCorpusOptions): Promise<Buffer> {
  const source = FACE_SOURCES[sourceIndex];
  if (source === undefined) throw new Error(`no face source ${sourceIndex}`);
  const random = Random.forSample(options.seed, sourceIndex, 'document-portrait');
  // Never mirrored, never warped: a document shows the person as the photo does. (Heavily warped faces
  // lose their identity and look alike: warped to straight, four turned faces reached 0.7–0.93 against
  // each other, bench/faces seed 11.)
  const seen = posed(source, false);
  const framing = drawFraming(random, seen, false);
  const photo = await sourcePhoto(options, seen.photo, false);
  const framed = await framedFace(photo, seen, framing);
  const [faceX, faceY] = toFrame(framing, seen.box[0] + seen.box[2] / 2, seen.box[1] + seen.box[3] / 2);
  const side = seen.box[3] * framing.scale;
  const left = max(0, round(faceX - 0.8 * side));
  const top = max(0, round(faceY - 0.95 * side));
  const straight = await sharp(framed.data, { raw: { width: framed.width, height: framed.height, channels: 3 } })
    .extract({ left, top, width: min(framed.width - left, round(1.6 * side)), height: min(framed.height - top, round(2 * side)) })
    .raw()
    .toBuffer({ resolveWithObject: true })
    .then(({ data, info }) => ({ data, width: info.width, height: info.height }));
  const faceHeight = random.uniform(90, 120);
  const width = round((straight.width * faceHeight) / side);
  const saturation = random.uniform(0.35, 0.7);
  return sharp(straight.data, { raw: { width: straight.width, height: straight.height, channels: 3 } })
    .resize(width)
    .modulate({ saturation, brightness: random.uniform(0.95, 1.12) })
    .linear(random.uniform(0.75, 0.9), random.uniform(15, 35))
    .blur(random.uniform(0.4, 0.9))
    .resize(max(200, width * 2))
    .jpeg({ quality: random.int(55, 80) })
    .toBuffer();
}

/**
 * A selfie of a person for the match pairs: framed and lit like a live frame, but unwarped (the photo's
 * own pose, within ±20° for 20 of the 22 faces), so that the pair measures the model, not the warp.
 */
export async function straightSelfie(sourceIndex: number, options: FaceCorpusOptions): Promise<Buffer> {
  const source = FACE_SOURCES[sourceIndex];
  if (source === undefined) throw new Error(`no face source ${sourceIndex}`);
  const random = Random.forSample(options.seed, sourceIndex, 'straight-selfie');
  const seen = posed(source, false);
  const framing = drawFraming(random, seen, false);
  const framed = await framedFace(await sourcePhoto(options, seen.photo, false), seen, framing);
  return camera(random, toFloat(framed), drawCamera(random));
}

/** The identities pairs can be drawn from: index into FACE_SOURCES. */
export function faceSourceIndex(identity: string): number {
  return FACE_SOURCES.findIndex((source) => source.id === identity);
}
