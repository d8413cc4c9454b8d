import { writeFileSync } from 'node:fs';
import sharp from 'sharp';

/** One picture of a fake camera's video, shown for `frames` ticks of the file's frame rate. */
export interface Shot {
  image: Buffer;
  frames: number;
}

/** A frame in YUV 4:2:0 (BT.601, full range as `C420jpeg` says), the layout Chromium's fake capture reads. */
async function yuvFrame(image: Buffer, width: number, height: number): Promise<Buffer> {
  const { data } = await sharp(image)
    .resize(width, height, { fit: 'contain', background: '#404040' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const y = Buffer.alloc(width * height);
  const u = Buffer.alloc((width / 2) * (height / 2));
  const v = Buffer.alloc((width / 2) * (height / 2));
  for (let row = 0; row < height; row++) {
    for (let column = 0; column < width; column++) {
      const at = (row * width + column) * 3;
      const [r, g, b] = [data[at]!, data[at + 1]!, data[at + 2]!];
      y[row * width + column] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
      if (row % 2 === 0 && column % 2 === 0) {
        const chroma = (row / 2) * (width / 2) + column / 2;
        u[chroma] = Math.max(0, Math.min(255, Math.round(128 - 0.168736 * r - 0.331264 * g + 0.5 * b)));
        v[chroma] = Math.max(0, Math.min(255, Math.round(128 + 0.5 * r - 0.418688 * g - 0.081312 * b)));
      }
    }
  }
  return Buffer.concat([Buffer.from('FRAME\n'), y, u, v]);
}

/**
 * Writes a y4m video for `--use-file-for-fake-video-capture`: each shot letterboxed into the frame size and
 * repeated for its ticks. Chromium plays the file from its start when a page opens the camera, in real
 * time at `fps`, and loops it.
 */
export async function writeY4m(file: string, shots: readonly Shot[], { width = 640, height = 480, fps = 2 } = {}) {
  const parts: Buffer[] = [Buffer.from(`YUV4MPEG2 W${width} H${height} F${fps}:1 Ip A1:1 C420jpeg\n`)];
  const encoded = new Map<Buffer, Buffer>();
  for (const shot of shots) {
    const frame = encoded.get(shot.image) ?? (await yuvFrame(shot.image, width, height));
    encoded.set(shot.image, frame);
    for (let tick = 0; tick < shot.frames; tick++) parts.push(frame);
  }
  writeFileSync(file, Buffer.concat(parts));
}
