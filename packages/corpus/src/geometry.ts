/** Plane geometry for placing a card in a photo: points, quadrilaterals and 3×3 homographies. */

export type Point = readonly [number, number];
/** Four corners, clockwise from top-left (as printed on the card, whatever the photo's rotation). */
export type Quad = readonly [Point, Point, Point, Point];
/** Row-major 3×3 matrix. */
export type Homography = readonly [number, number, number, number, number, number, number, number, number];

export function rectQuad(x: number, y: number, width: number, height: number): Quad {
  return [
    [x, y],
    [x + width, y],
    [x + width, y + height],
    [x, y + height],
  ];
}

export function applyHomography(h: Homography, point: Point): Point {
  const [x, y] = point;
  const w = h[6] * x + h[7] * y + h[8];
  return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
}

export function mapQuad(h: Homography, quad: Quad): Quad {
  return [applyHomography(h, quad[0]), applyHomography(h, quad[1]), applyHomography(h, quad[2]), applyHomography(h, quad[3])];
}

export function multiplyHomographies(a: Homography, b: Homography): Homography {
  const m = (row: number, col: number): number =>
    (a[row * 3] ?? 0) * (b[col] ?? 0) + (a[row * 3 + 1] ?? 0) * (b[3 + col] ?? 0) + (a[row * 3 + 2] ?? 0) * (b[6 + col] ?? 0);
  return [m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2), m(2, 0), m(2, 1), m(2, 2)];
}

export function invertHomography(h: Homography): Homography {
  const [a, b, c, d, e, f, g, i, j] = h;
  const co00 = e * j - f * i;
  const co01 = -(d * j - f * g);
  const co02 = d * i - e * g;
  const determinant = a * co00 + b * co01 + c * co02;
  if (Math.abs(determinant) < 1e-12) throw new Error('singular homography');
  const inv = [
    co00,
    -(b * j - c * i),
    b * f - c * e,
    co01,
    a * j - c * g,
    -(a * f - c * d),
    co02,
    -(a * i - b * g),
    a * e - b * d,
  ].map((value) => value / determinant);
  return inv as unknown as Homography;
}

/** The homography taking the four `from` points to the four `to` points (direct linear transform). */
export function homographyFromQuads(from: Quad, to: Quad): Homography {
  const rows: number[][] = [];
  for (let index = 0; index < 4; index += 1) {
    const [x, y] = from[index] as Point;
    const [u, v] = to[index] as Point;
    rows.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    rows.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  const solution = solveLinearSystem(rows);
  return [...solution, 1] as unknown as Homography;
}

/** Gaussian elimination with partial pivoting on an n×(n+1) augmented matrix. */
function solveLinearSystem(augmented: number[][]): number[] {
  const n = augmented.length;
  const m = augmented.map((row) => [...row]);
  for (let col = 0; col < n; col += 1) {
    let pivot = col;
    for (let row = col + 1; row < n; row += 1) {
      if (Math.abs(m[row]?.[col] ?? 0) > Math.abs(m[pivot]?.[col] ?? 0)) pivot = row;
    }
    const pivotRow = m[pivot] as number[];
    m[pivot] = m[col] as number[];
    m[col] = pivotRow;
    const divisor = pivotRow[col] ?? 0;
    if (Math.abs(divisor) < 1e-12) throw new Error('degenerate quadrilateral');
    for (let row = 0; row < n; row += 1) {
      if (row === col) continue;
      const current = m[row] as number[];
      const factor = (current[col] ?? 0) / divisor;
      if (factor === 0) continue;
      for (let k = col; k <= n; k += 1) current[k] = (current[k] ?? 0) - factor * (pivotRow[k] ?? 0);
    }
  }
  return m.map((row, index) => (row[n] ?? 0) / (row[index] ?? 1));
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function boundingBox(points: readonly Point[]): Box {
  const xs = points.map((point) => point[0]);
  const ys = points.map((point) => point[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

export function roundQuad(quad: Quad): Quad {
  const round = (point: Point): Point => [Math.round(point[0] * 10) / 10, Math.round(point[1] * 10) / 10];
  return [round(quad[0]), round(quad[1]), round(quad[2]), round(quad[3])];
}

/**
 * Where the corners of a `width`×`height` plane land when it is turned by `yawDeg` about its vertical
 * axis, `pitchDeg` about its horizontal axis and `rollDeg` in the image plane, then seen by a pinhole
 * camera at distance `focal` (in the plane's own units). Centred on the origin.
 */
export function projectPlane(
  width: number,
  height: number,
  angles: { yawDeg: number; pitchDeg: number; rollDeg: number },
  focal: number,
): Quad {
  const yaw = (angles.yawDeg * Math.PI) / 180;
  const pitch = (angles.pitchDeg * Math.PI) / 180;
  const roll = (angles.rollDeg * Math.PI) / 180;
  const corners: Point[] = [
    [-width / 2, -height / 2],
    [width / 2, -height / 2],
    [width / 2, height / 2],
    [-width / 2, height / 2],
  ];
  const projected = corners.map(([x0, y0]): Point => {
    // Roll in the plane, then yaw (about y), then pitch (about x).
    const xr = x0 * Math.cos(roll) - y0 * Math.sin(roll);
    const yr = x0 * Math.sin(roll) + y0 * Math.cos(roll);
    const x1 = xr * Math.cos(yaw);
    const z1 = -xr * Math.sin(yaw);
    const y2 = yr * Math.cos(pitch) - z1 * Math.sin(pitch);
    const z2 = yr * Math.sin(pitch) + z1 * Math.cos(pitch);
    const scale = focal / (focal + z2);
    return [x1 * scale, y2 * scale];
  });
  return projected as unknown as Quad;
}
