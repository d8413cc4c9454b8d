/** Points and quadrilaterals between the frames of a rotated image. */
export interface Point {
  x: number;
  y: number;
}

export interface Quad {
  topLeft: Point;
  topRight: Point;
  bottomRight: Point;
  bottomLeft: Point;
}

/**
 * Where a point of an image of `from` size lands after a clockwise rotation by `degrees` about the centre
 * onto a canvas of `to` size (libvips enlarges the canvas to the rotated bounding box and centres the
 * image on it; y grows downwards).
 */
export function rotatePoint(
  point: Point,
  degrees: number,
  from: { width: number; height: number },
  to: { width: number; height: number },
): Point {
  const radians = (degrees * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const dx = point.x - from.width / 2;
  const dy = point.y - from.height / 2;
  return { x: dx * cos - dy * sin + to.width / 2, y: dx * sin + dy * cos + to.height / 2 };
}

export function rotateQuad(
  quad: Quad,
  degrees: number,
  from: { width: number; height: number },
  to: { width: number; height: number },
): Quad {
  return {
    topLeft: rotatePoint(quad.topLeft, degrees, from, to),
    topRight: rotatePoint(quad.topRight, degrees, from, to),
    bottomRight: rotatePoint(quad.bottomRight, degrees, from, to),
    bottomLeft: rotatePoint(quad.bottomLeft, degrees, from, to),
  };
}

/** The canvas libvips makes for a rotation: the bounding box of the rotated image. */
export function rotatedSize(size: { width: number; height: number }, degrees: number): { width: number; height: number } {
  const radians = (degrees * Math.PI) / 180;
  const cos = Math.abs(Math.cos(radians));
  const sin = Math.abs(Math.sin(radians));
  return {
    width: Math.round(size.width * cos + size.height * sin),
    height: Math.round(size.width * sin + size.height * cos),
  };
}

/** The direction of the quad's top edge, in degrees clockwise from the x axis (y down), in (-180, 180]. */
export function quadAngle(quad: Quad): number {
  return (Math.atan2(quad.topRight.y - quad.topLeft.y, quad.topRight.x - quad.topLeft.x) * 180) / Math.PI;
}

export function boundingBox(points: readonly Point[]): { left: number; top: number; right: number; bottom: number } {
  const xs = points.map((point) => point.x);
  const ys = points.map((point) => point.y);
  return { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
}

export function mapQuad(quad: Quad, map: (point: Point) => Point): Quad {
  return {
    topLeft: map(quad.topLeft),
    topRight: map(quad.topRight),
    bottomRight: map(quad.bottomRight),
    bottomLeft: map(quad.bottomLeft),
  };
}
