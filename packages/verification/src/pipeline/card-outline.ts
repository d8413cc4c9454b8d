import sharp from 'sharp';
import * as cardOutlineCalibration from '../calibration/card-outline';
import type { Point } from '../image/geometry';

/**
 * The outline of the card (or passport page) in a photo: the four straight edges between the document
 * and what it lies on, as four corners. It says how the card was held, not what it shows: two photos of
 * one card whose outlines have the same shape (up to turning, moving and scaling) were taken from the
 * same angle; a card tilted towards or away from the camera foreshortens and narrows at its far end.
 *
 * Found on a 400 px copy of the photo, then refined on an 800 px one:
 * 1. straight edges: a Hough transform of the colour gradient (luma and two opponent channels: a card on
 *    a table of its own brightness still differs from it in hue), each pixel voting only near its own
 *    gradient's direction (a wood grain's short strokes and the card's print add little to a long line);
 * 2. the outline: among quadrilaterals made of two roughly parallel pairs of those lines, of a document's
 *    shape and size, whose four sides are each edges along most of their length, the one whose sides are
 *    best supported, longest, and have the same colour just inside all round (the card's margin) and
 *    another just outside: a line of the surface's grain beside the card's edge makes a side with no
 *    card inside it. None when that contrast is weak (a card on a surface of its own colour: the
 *    corpus's white table, 26 or less against 98 or more elsewhere);
 * 3. each side fitted again by least squares through the strongest colour change across it.
 *
 * Measured on 72 fronts of corpus seed 31 (2012 and 2009 DNIs, passports; clean and in perspective; every
 * surface but the white table): every corner within 3.1 px of the label's at 1400 × 1000; none found on
 * the 48 white-table photos.
 */
export interface CardOutline {
  /** Clockwise from the corner nearest the photo's top-left, in the photo's pixels. */
  corners: [Point, Point, Point, Point];
  /** The smallest share of a side's length that is an edge (0–1): how clearly the outline shows. */
  support: number;
}

// The loops call these millions of times: aliased once, because a global lookup per call is slow
// wherever the global object is not the realm's own (jest runs tests in such a context).
const { PI, abs, atan2, ceil, cos, floor, max, min, round, sign, sin, sqrt } = Math;

// Copied into module constants: compiled to CommonJS, each use of an imported constant is a property
// read, and the loops below run per pixel.
const {
  SEARCH_SIDE,
  REFINE_SIDE,
  THETA_STEPS,
  EDGE_PERCENTILE,
  MIN_EDGE_STRENGTH,
  MAX_LINES,
  SAME_LINE_DEGREES,
  SAME_LINE_PIXELS,
  MAX_PAIR_DEGREES,
  MIN_CORNER_DEGREES,
  MIN_ASPECT,
  MAX_ASPECT,
  MIN_AREA_SHARE,
  OUTSIDE_MARGIN,
  SIDE_ANGLE_TOLERANCE_DEGREES,
  MIN_SIDE_SUPPORT,
  BAND_FROM,
  BAND_TO,
  MIN_CONTRAST,
} = cardOutlineCalibration;

interface Line {
  theta: number;
  rho: number;
  votes: number;
}

interface Gradient {
  width: number;
  height: number;
  gx: Float32Array;
  gy: Float32Array;
  magnitude: Float32Array;
}

interface Channels {
  channels: Float32Array[];
  width: number;
  height: number;
}

/** Luma and two opponent channels (red–blue, green–magenta) of an RGB raster. */
function channelsOf(rgb: Buffer, width: number, height: number): Channels {
  const luma = new Float32Array(width * height);
  const redBlue = new Float32Array(width * height);
  const greenMagenta = new Float32Array(width * height);
  for (let index = 0; index < width * height; index += 1) {
    const r = rgb[index * 3]!;
    const g = rgb[index * 3 + 1]!;
    const b = rgb[index * 3 + 2]!;
    luma[index] = 0.299 * r + 0.587 * g + 0.114 * b;
    redBlue[index] = r - b;
    greenMagenta[index] = g - (r + b) / 2;
  }
  return { channels: [luma, redBlue, greenMagenta], width, height };
}

/** An area-averaged copy whose long side is at most `side`. */
function downscale(source: Channels, side: number): Channels & { scale: number } {
  const scale = min(1, side / max(source.width, source.height));
  const width = max(1, round(source.width * scale));
  const height = max(1, round(source.height * scale));
  const counts = new Float32Array(width * height);
  const targets = new Int32Array(source.width * source.height);
  const columns = new Int32Array(source.width);
  for (let x = 0; x < source.width; x += 1) columns[x] = min(width - 1, floor(x * scale));
  for (let y = 0; y < source.height; y += 1) {
    const rowTarget = min(height - 1, floor(y * scale)) * width;
    const row = y * source.width;
    for (let x = 0; x < source.width; x += 1) {
      const target = rowTarget + columns[x]!;
      targets[row + x] = target;
      counts[target]! += 1;
    }
  }
  const channels = source.channels.map((channel) => {
    const pixels = new Float32Array(width * height);
    for (let index = 0; index < channel.length; index += 1) pixels[targets[index]!]! += channel[index]!;
    for (let index = 0; index < pixels.length; index += 1) pixels[index] = pixels[index]! / max(1, counts[index]!);
    return pixels;
  });
  return { channels, width, height, scale };
}

/**
 * Whether (x, y) is on the raster's rim, where a 3 × 3 neighbourhood needs clamping; inside it, the loops
 * read the neighbours by offset, the same values added in the same order (the same result to the bit).
 */
function onRim(x: number, y: number, width: number, height: number): boolean {
  return x === 0 || y === 0 || x === width - 1 || y === height - 1;
}

function smoothed(pixels: Float32Array, width: number, height: number): Float32Array {
  const smooth = new Float32Array(pixels.length);
  const at = (x: number, y: number) => pixels[min(height - 1, max(0, y)) * width + min(width - 1, max(0, x))]!;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = y * width + x;
      if (!onRim(x, y, width, height)) {
        const up = i - width;
        const down = i + width;
        smooth[i] =
          (pixels[up - 1]! +
            2 * pixels[up]! +
            pixels[up + 1]! +
            2 * pixels[i - 1]! +
            4 * pixels[i]! +
            2 * pixels[i + 1]! +
            pixels[down - 1]! +
            2 * pixels[down]! +
            pixels[down + 1]!) /
          16;
        continue;
      }
      smooth[i] =
        (at(x - 1, y - 1) +
          2 * at(x, y - 1) +
          at(x + 1, y - 1) +
          2 * at(x - 1, y) +
          4 * at(x, y) +
          2 * at(x + 1, y) +
          at(x - 1, y + 1) +
          2 * at(x, y + 1) +
          at(x + 1, y + 1)) /
        16;
    }
  }
  return smooth;
}

/**
 * The gradient of a lightly blurred colour image ([1 2 1]² smoothing, then Sobel on luma and two
 * opponent channels, combined by their structure tensor): a card on a table of its own brightness still
 * differs from it in hue. Its direction is known up to a half turn.
 */
function gradientOf(channels: readonly Float32Array[], width: number, height: number): Gradient {
  const gx = new Float32Array(width * height);
  const gy = new Float32Array(width * height);
  const magnitude = new Float32Array(width * height);
  const jxx = new Float32Array(width * height);
  const jxy = new Float32Array(width * height);
  const jyy = new Float32Array(width * height);
  for (const channel of channels) {
    const s = smoothed(channel, width, height);
    const at = (x: number, y: number) => s[min(height - 1, max(0, y)) * width + min(width - 1, max(0, x))]!;
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const index = y * width + x;
        let dx: number;
        let dy: number;
        if (onRim(x, y, width, height)) {
          dx = at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1) - at(x - 1, y - 1) - 2 * at(x - 1, y) - at(x - 1, y + 1);
          dy = at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1) - at(x - 1, y - 1) - 2 * at(x, y - 1) - at(x + 1, y - 1);
        } else {
          const up = index - width;
          const down = index + width;
          dx = s[up + 1]! + 2 * s[index + 1]! + s[down + 1]! - s[up - 1]! - 2 * s[index - 1]! - s[down - 1]!;
          dy = s[down - 1]! + 2 * s[down]! + s[down + 1]! - s[up - 1]! - 2 * s[up]! - s[up + 1]!;
        }
        jxx[index]! += dx * dx;
        jxy[index]! += dx * dy;
        jyy[index]! += dy * dy;
      }
    }
  }
  for (let index = 0; index < magnitude.length; index += 1) {
    const a = jxx[index]!;
    const b = jxy[index]!;
    const c = jyy[index]!;
    const largest = (a + c) / 2 + sqrt(((a - c) / 2) ** 2 + b * b);
    const angle = 0.5 * atan2(2 * b, a - c);
    const strength = sqrt(max(0, largest));
    magnitude[index] = strength;
    gx[index] = strength * cos(angle);
    gy[index] = strength * sin(angle);
  }
  return { width, height, gx, gy, magnitude };
}

/**
 * The value at `share` of the sorted values (the same as sorting them and indexing), found by selection
 * (Hoare's quickselect on a copy): a full sort of the 120,000 magnitudes cost about a tenth of the outline.
 */
function percentile(values: Float32Array, share: number): number {
  if (values.length === 0) return 0;
  const order = Float32Array.from(values);
  const wanted = min(order.length - 1, floor(share * order.length));
  let low = 0;
  let high = order.length - 1;
  while (low < high) {
    const pivot = order[(low + high) >>> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (order[i]! < pivot) i += 1;
      while (order[j]! > pivot) j -= 1;
      if (i <= j) {
        const swap = order[i]!;
        order[i] = order[j]!;
        order[j] = swap;
        i += 1;
        j -= 1;
      }
    }
    if (wanted <= j) high = j;
    else if (wanted >= i) low = i;
    else break;
  }
  return order[wanted]!;
}

/** The strongest straight lines (x·cos θ + y·sin θ = ρ, θ in [0, π)), near-duplicates suppressed. */
function houghLines(gradient: Gradient, threshold: number): Line[] {
  const { width, height, gx, gy, magnitude } = gradient;
  const diagonal = ceil(sqrt(width * width + height * height));
  const rhos = 2 * diagonal + 1;
  const votes = new Float32Array(THETA_STEPS * rhos);
  const cosines = Float64Array.from({ length: THETA_STEPS }, (_, t) => cos((t * PI) / THETA_STEPS));
  const sines = Float64Array.from({ length: THETA_STEPS }, (_, t) => sin((t * PI) / THETA_STEPS));
  for (let y = 1; y < height - 1; y += 1) {
    for (let x = 1; x < width - 1; x += 1) {
      const index = y * width + x;
      const strength = magnitude[index]!;
      if (strength < threshold) continue;
      // The line's normal is the gradient's direction.
      let direction = round((atan2(gy[index]!, gx[index]!) * THETA_STEPS) / PI);
      direction = ((direction % THETA_STEPS) + THETA_STEPS) % THETA_STEPS;
      for (let offset = -2; offset <= 2; offset += 1) {
        const t = (direction + offset + THETA_STEPS) % THETA_STEPS;
        const rho = round(x * cosines[t]! + y * sines[t]!) + diagonal;
        votes[t * rhos + rho]! += 1;
      }
    }
  }
  const fewestVotes = min(width, height) * 0.2;
  const order: number[] = [];
  for (let index = 0; index < votes.length; index += 1) if (votes[index]! >= fewestVotes) order.push(index);
  // Stable: cells of equal votes stay in index order.
  order.sort((a, b) => votes[b]! - votes[a]!);
  const lines: Line[] = [];
  for (const index of order) {
    const theta = floor(index / rhos);
    const rho = (index % rhos) - diagonal;
    const duplicate = lines.some((line) => {
      const dTheta = abs(line.theta - theta);
      // Across θ = 0/π the same line has its ρ negated.
      if (dTheta <= SAME_LINE_DEGREES) return abs(line.rho - rho) <= SAME_LINE_PIXELS;
      if (THETA_STEPS - dTheta <= SAME_LINE_DEGREES) return abs(line.rho + rho) <= SAME_LINE_PIXELS;
      return false;
    });
    if (duplicate) continue;
    lines.push({ theta, rho, votes: votes[index]! });
    if (lines.length >= MAX_LINES) break;
  }
  return lines;
}

function angleBetween(a: Line, b: Line): number {
  const d = abs(a.theta - b.theta) % THETA_STEPS;
  return min(d, THETA_STEPS - d);
}

function intersect(a: Line, b: Line): Point | null {
  const ta = (a.theta * PI) / THETA_STEPS;
  const tb = (b.theta * PI) / THETA_STEPS;
  const det = cos(ta) * sin(tb) - sin(ta) * cos(tb);
  if (abs(det) < 1e-6) return null;
  return {
    x: (a.rho * sin(tb) - b.rho * sin(ta)) / det,
    y: (b.rho * cos(ta) - a.rho * cos(tb)) / det,
  };
}

/** The corners clockwise (y down) starting from the one nearest the top-left. */
export function clockwiseCorners(points: readonly Point[]): [Point, Point, Point, Point] {
  const cx = points.reduce((sum, p) => sum + p.x, 0) / points.length;
  const cy = points.reduce((sum, p) => sum + p.y, 0) / points.length;
  const sorted = [...points].sort((a, b) => atan2(a.y - cy, a.x - cx) - atan2(b.y - cy, b.x - cx));
  let first = 0;
  sorted.forEach((p, i) => {
    if (p.x + p.y < sorted[first]!.x + sorted[first]!.y) first = i;
  });
  const turned = [...sorted.slice(first), ...sorted.slice(0, first)];
  return [turned[0]!, turned[1]!, turned[2]!, turned[3]!];
}

function polygonArea(corners: readonly Point[]): number {
  let area = 0;
  for (let i = 0; i < corners.length; i += 1) {
    const a = corners[i]!;
    const b = corners[(i + 1) % corners.length]!;
    area += a.x * b.y - b.x * a.y;
  }
  return abs(area) / 2;
}

function isConvex(corners: readonly Point[]): boolean {
  let turning = 0;
  for (let i = 0; i < 4; i += 1) {
    const a = corners[i]!;
    const b = corners[(i + 1) % 4]!;
    const c = corners[(i + 2) % 4]!;
    const cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
    if (abs(cross) < 1e-9) return false;
    if (turning === 0) turning = sign(cross);
    else if (sign(cross) !== turning) return false;
  }
  return true;
}

const distance = (a: Point, b: Point) => sqrt((a.x - b.x) ** 2 + (a.y - b.y) ** 2);

/** How much of a side (its middle 80%: the corners are rounded) is an edge across it (0–1). */
function sideSupport(gradient: Gradient, a: Point, b: Point, threshold: number): number {
  const length = distance(a, b);
  const samples = max(8, round(length / 2));
  const nx = -(b.y - a.y) / length;
  const ny = (b.x - a.x) / length;
  const cosTolerance = cos((SIDE_ANGLE_TOLERANCE_DEGREES * PI) / 180);
  let supported = 0;
  let counted = 0;
  for (let i = 0; i <= samples; i += 1) {
    const t = 0.1 + (0.8 * i) / samples;
    const px = a.x + (b.x - a.x) * t;
    const py = a.y + (b.y - a.y) * t;
    let best = 0;
    let bestDot = 0;
    for (let step = -1; step <= 1; step += 1) {
      const x = round(px + nx * step);
      const y = round(py + ny * step);
      if (x < 0 || y < 0 || x >= gradient.width || y >= gradient.height) continue;
      const index = y * gradient.width + x;
      const strength = gradient.magnitude[index]!;
      if (strength <= best) continue;
      best = strength;
      bestDot = (gradient.gx[index]! * nx + gradient.gy[index]! * ny) / max(1e-6, strength);
    }
    counted += 1;
    if (best >= threshold && abs(bestDot) >= cosTolerance) {
      supported += 1;
    }
  }
  return counted === 0 ? 0 : supported / counted;
}

interface Candidate {
  corners: [Point, Point, Point, Point];
  support: number;
  score: number;
}

/**
 * The mean colour of thin bands just inside and just outside a side (its middle 80%), inside being the
 * side towards `centre`.
 */
function sideBands(source: Channels, a: Point, b: Point, centre: Point): { inside: number[]; outside: number[] } {
  const length = distance(a, b);
  let nx = -(b.y - a.y) / length;
  let ny = (b.x - a.x) / length;
  const mx = (a.x + b.x) / 2;
  const my = (a.y + b.y) / 2;
  if ((centre.x - mx) * nx + (centre.y - my) * ny < 0) {
    nx = -nx;
    ny = -ny;
  }
  const inside = source.channels.map(() => 0);
  const outside = source.channels.map(() => 0);
  let count = 0;
  const samples = max(8, round(length / 2));
  for (let i = 0; i <= samples; i += 1) {
    const t = 0.1 + (0.8 * i) / samples;
    const px = a.x + (b.x - a.x) * t;
    const py = a.y + (b.y - a.y) * t;
    for (let depth = BAND_FROM; depth <= BAND_TO; depth += 1) {
      const xi = round(px + nx * depth);
      const yi = round(py + ny * depth);
      const xo = round(px - nx * depth);
      const yo = round(py - ny * depth);
      if (xo < 0 || yo < 0 || xo >= source.width || yo >= source.height) continue;
      if (xi < 0 || yi < 0 || xi >= source.width || yi >= source.height) continue;
      source.channels.forEach((channel, c) => {
        inside[c]! += channel[yi * source.width + xi]!;
        outside[c]! += channel[yo * source.width + xo]!;
      });
      count += 1;
    }
  }
  if (count === 0) return { inside, outside: inside };
  return { inside: inside.map((sum) => sum / count), outside: outside.map((sum) => sum / count) };
}

const colourDistance = (p: readonly number[], q: readonly number[]) =>
  sqrt(p.reduce((sum, value, i) => sum + (value - q[i]!) ** 2, 0));

function bestOutline(source: Channels, gradient: Gradient, lines: readonly Line[], threshold: number): Candidate | null {
  const { width, height } = gradient;
  const pairs: [Line, Line][] = [];
  for (let i = 0; i < lines.length; i += 1)
    for (let j = i + 1; j < lines.length; j += 1)
      if (angleBetween(lines[i]!, lines[j]!) <= MAX_PAIR_DEGREES) pairs.push([lines[i]!, lines[j]!]);
  let best: Candidate | null = null;
  for (let p = 0; p < pairs.length; p += 1) {
    for (let q = p + 1; q < pairs.length; q += 1) {
      const [a1, a2] = pairs[p]!;
      const [b1, b2] = pairs[q]!;
      if (a1 === b1 || a1 === b2 || a2 === b1 || a2 === b2) continue;
      if (min(angleBetween(a1, b1), angleBetween(a1, b2), angleBetween(a2, b1), angleBetween(a2, b2)) < MIN_CORNER_DEGREES)
        continue;
      const points = [intersect(a1, b1), intersect(a1, b2), intersect(a2, b2), intersect(a2, b1)];
      if (points.some((point) => point === null)) continue;
      const corners = points as [Point, Point, Point, Point];
      if (!isConvex(corners)) continue;
      const outside = (point: Point) =>
        point.x < -OUTSIDE_MARGIN * width ||
        point.y < -OUTSIDE_MARGIN * height ||
        point.x > (1 + OUTSIDE_MARGIN) * width ||
        point.y > (1 + OUTSIDE_MARGIN) * height;
      if (corners.some(outside)) continue;
      const area = polygonArea(corners);
      if (area < MIN_AREA_SHARE * width * height) continue;
      const sides = [0, 1, 2, 3].map((i) => distance(corners[i]!, corners[(i + 1) % 4]!));
      const one = (sides[0]! + sides[2]!) / 2;
      const other = (sides[1]! + sides[3]!) / 2;
      const aspect = max(one, other) / max(1e-6, min(one, other));
      if (aspect < MIN_ASPECT || aspect > MAX_ASPECT) continue;
      const supports = [0, 1, 2, 3].map((i) => sideSupport(gradient, corners[i]!, corners[(i + 1) % 4]!, threshold));
      const support = min(...supports);
      if (support < MIN_SIDE_SUPPORT) continue;
      const perimeter = supports.reduce((sum, share, i) => sum + share * sides[i]!, 0);
      // The document's margin is inside every side and differs from what lies outside: a line of the
      // surface's texture next to the card's own edge makes a side whose inside band is not the card.
      const centre = {
        x: corners.reduce((sum, p) => sum + p.x, 0) / 4,
        y: corners.reduce((sum, p) => sum + p.y, 0) / 4,
      };
      const bands = [0, 1, 2, 3].map((i) => sideBands(source, corners[i]!, corners[(i + 1) % 4]!, centre));
      const contrast = min(...bands.map((band) => colourDistance(band.inside, band.outside)));
      let spread = 0;
      for (let i = 0; i < 4; i += 1)
        for (let j = i + 1; j < 4; j += 1) spread = max(spread, colourDistance(bands[i]!.inside, bands[j]!.inside));
      if (contrast < MIN_CONTRAST) continue;
      const score = perimeter * support * support * (contrast / (contrast + spread + 1));
      if (best === null || score > best.score) best = { corners, support, score };
    }
  }
  return best;
}

/**
 * A side moved onto the strongest change across it at full size: along short normals, the point where
 * the colour changes most (with sub-pixel interpolation), fitted by a line twice, the farthest tenth of
 * the points dropped in between.
 */
function refineSide(source: Channels, a: Point, b: Point, reach: number): { point: Point; direction: Point } | null {
  const length = distance(a, b);
  const nx = -(b.y - a.y) / length;
  const ny = (b.x - a.x) / length;
  const sample = (x: number, y: number): number[] => {
    const index = min(source.height - 1, max(0, round(y))) * source.width + min(source.width - 1, max(0, round(x)));
    return source.channels.map((channel) => channel[index]!);
  };
  const change = (p: number[], q: number[]) => sqrt(p.reduce((sum, value, i) => sum + (value - q[i]!) ** 2, 0));
  const points: Point[] = [];
  const samples = max(16, round(length / 3));
  for (let i = 0; i <= samples; i += 1) {
    const t = 0.12 + (0.76 * i) / samples;
    const cx = a.x + (b.x - a.x) * t;
    const cy = a.y + (b.y - a.y) * t;
    const profile: number[][] = [];
    for (let offset = -reach - 2; offset <= reach + 2; offset += 1) profile.push(sample(cx + nx * offset, cy + ny * offset));
    const steps: number[] = profile.map((_, k) =>
      k === 0 || k === profile.length - 1 ? 0 : change(profile[k + 1]!, profile[k - 1]!),
    );
    let best = 1;
    for (let k = 2; k < steps.length - 2; k += 1) if (steps[k]! > steps[best]!) best = k;
    if (steps[best]! < 8) continue;
    const left = steps[best - 1]!;
    const right = steps[best + 1]!;
    const curvature = left - 2 * steps[best]! + right;
    const shift = curvature < 0 ? max(-0.5, min(0.5, (left - right) / (2 * curvature))) : 0;
    const offset = best - reach - 2 + shift;
    points.push({ x: cx + nx * offset, y: cy + ny * offset });
  }
  if (points.length < 8) return null;
  const fit = (chosen: readonly Point[]) => {
    const mx = chosen.reduce((sum, p) => sum + p.x, 0) / chosen.length;
    const my = chosen.reduce((sum, p) => sum + p.y, 0) / chosen.length;
    let sxx = 0;
    let sxy = 0;
    let syy = 0;
    for (const p of chosen) {
      sxx += (p.x - mx) ** 2;
      sxy += (p.x - mx) * (p.y - my);
      syy += (p.y - my) ** 2;
    }
    const angle = 0.5 * atan2(2 * sxy, sxx - syy);
    return { point: { x: mx, y: my }, direction: { x: cos(angle), y: sin(angle) } };
  };
  const first = fit(points);
  const off = (p: Point) => abs((p.x - first.point.x) * -first.direction.y + (p.y - first.point.y) * first.direction.x);
  const kept = [...points].sort((p, q) => off(p) - off(q)).slice(0, max(8, floor(points.length * 0.9)));
  return fit(kept);
}

function crossing(a: { point: Point; direction: Point }, b: { point: Point; direction: Point }): Point | null {
  const det = a.direction.x * b.direction.y - a.direction.y * b.direction.x;
  if (abs(det) < 1e-9) return null;
  const t = ((b.point.x - a.point.x) * b.direction.y - (b.point.y - a.point.y) * b.direction.x) / det;
  return { x: a.point.x + a.direction.x * t, y: a.point.y + a.direction.y * t };
}

/**
 * The card's outline in a photo, in the photo's pixels, or null when no four edges of a document's shape
 * show clearly (a card on a surface of its own colour, a card cut by the frame).
 */
export async function findCardOutline(image: Buffer): Promise<CardOutline | null> {
  const metadata = await sharp(image).metadata();
  if (!metadata.width || !metadata.height || metadata.width < 32 || metadata.height < 32) return null;
  const { data, info } = await sharp(image)
    .resize({ width: REFINE_SIDE, height: REFINE_SIDE, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const full = channelsOf(data, info.width, info.height);
  const small = downscale(full, SEARCH_SIDE);
  const gradient = gradientOf(small.channels, small.width, small.height);
  const threshold = max(MIN_EDGE_STRENGTH, percentile(gradient.magnitude, EDGE_PERCENTILE));
  const lines = houghLines(gradient, threshold);
  const found = bestOutline(small, gradient, lines, threshold);
  if (found === null) return null;
  const toFull = (p: Point): Point => ({ x: (p.x + 0.5) / small.scale - 0.5, y: (p.y + 0.5) / small.scale - 0.5 });
  const coarse = found.corners.map(toFull);
  const reach = max(3, round(2.5 / small.scale));
  const sides = [0, 1, 2, 3].map((i) => refineSide(full, coarse[i]!, coarse[(i + 1) % 4]!, reach));
  const toImage = metadata.width / info.width;
  const corners: Point[] = [];
  for (let i = 0; i < 4; i += 1) {
    const before = sides[(i + 3) % 4];
    const after = sides[i];
    const refined = before && after ? crossing(before, after) : null;
    // A refined corner far from the coarse one is a fit gone astray: the coarse corner stands.
    const corner = refined !== null && distance(refined, coarse[i]!) <= 3 * reach ? refined : coarse[i]!;
    corners.push({ x: (corner.x + 0.5) * toImage - 0.5, y: (corner.y + 0.5) * toImage - 0.5 });
  }
  return { corners: clockwiseCorners(corners), support: round(found.support * 1000) / 1000 };
}
