import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';

/**
 * Real photos for the model tests, read from where an npm package ships them: the six demo photos of
 * @vladmandic/face-api (MIT, a devDependency; docs/faces.md lists them), nothing copied into the repo.
 * Boxes are the faces' places at 1600 px wide, as human found them (docs/faces.md).
 */
const DEMO = path.join(path.dirname(require.resolve('@vladmandic/face-api')), '..', 'demo');

export function demoPhoto(name: `sample${1 | 2 | 3 | 4 | 5 | 6}.jpg`): Buffer {
  return readFileSync(path.join(DEMO, name));
}

export const FACES = {
  /** sample3, middle: looking at the camera (yaw ≈ 10°). */
  middle: { photo: 'sample3.jpg', box: [831, 157, 305] },
  /** sample3, left: looking at the camera (yaw ≈ 10°), another person. */
  left: { photo: 'sample3.jpg', box: [429, 245, 301] },
  /** sample5: turned to her own left (yaw ≈ −25°); mirrored, turned to her right. */
  turned: { photo: 'sample5.jpg', box: [430, 342, 256] },
} as const satisfies Record<string, { photo: `sample${number}.jpg`; box: readonly [number, number, number] }>;

/** A square around one face, 1.6× its box, `side` px, optionally mirrored, as a JPEG. */
export async function faceCrop(face: keyof typeof FACES, options: { mirror?: boolean; side?: number } = {}): Promise<Buffer> {
  const { photo, box } = FACES[face];
  const page = await sharp(demoPhoto(photo)).resize(1600).toBuffer({ resolveWithObject: true });
  const [x, y, size] = box;
  const side = Math.round(size * 1.6);
  const left = Math.max(0, Math.round(x + size / 2 - side / 2));
  const top = Math.max(0, Math.round(y + size / 2 - side / 2));
  let crop = sharp(page.data)
    .extract({ left, top, width: Math.min(side, page.info.width - left), height: Math.min(side, page.info.height - top) })
    .resize(options.side ?? 320);
  if (options.mirror === true) crop = crop.flop();
  return crop.jpeg({ quality: 85 }).toBuffer();
}

export function plainImage(width: number, height: number, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 120 } } });
  return (format === 'png' ? image.png() : image.jpeg()).toBuffer();
}
