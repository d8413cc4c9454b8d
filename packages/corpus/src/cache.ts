import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { documentId, generateDocumentImages, type CorpusImage, type GenerateOptions, type SampleLabel } from './generate';

/**
 * A corpus kept on disk between runs (the calibration and the benchmark reuse it): one folder per set
 * of generation options, named by their hash, holding each document's images and a JSON of its labels.
 * A document is generated only when its labels file is missing; the labels are written last, so a run
 * stopped halfway leaves no half-written document behind that would be taken as complete.
 */
export function corpusCacheDir(root: string, options: GenerateOptions): string {
  const fingerprint = createHash('sha256').update(JSON.stringify(options)).digest('hex').slice(0, 10);
  return path.join(root, `s${options.seed}-${options.width}x${options.height}-${fingerprint}`);
}

/** Document `index`'s images as `generateDocumentImages` makes them (`photo` n > 0: its n-th retake), from the cache when there. */
export async function cachedDocumentImages(
  root: string,
  index: number,
  options: GenerateOptions,
  photo = 0,
): Promise<CorpusImage[]> {
  const dir = corpusCacheDir(root, options);
  const labelsFile = path.join(dir, `${documentId(options.seed, index)}${photo === 0 ? '' : `-retake${photo}`}.labels.json`);
  if (fs.existsSync(labelsFile)) {
    const labels = JSON.parse(fs.readFileSync(labelsFile, 'utf8')) as SampleLabel[];
    return labels.map((label) => ({ label, image: fs.readFileSync(path.join(dir, label.file)) }));
  }
  const images = await generateDocumentImages(index, options, photo);
  fs.mkdirSync(dir, { recursive: true });
  for (const { image, label } of images) fs.writeFileSync(path.join(dir, label.file), image);
  fs.writeFileSync(labelsFile, `${JSON.stringify(images.map(({ label }) => label))}\n`);
  return images;
}
