import { DEFAULT_GENERATE_OPTIONS, generateDocumentImages } from '@idv/corpus';
import { perceptualSignature, prepareUpload } from '@idv/verification';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { SAMPLE_FOLDERS, SampleSignatures, isFlatSignature } from '../src/adapters/sample-signatures';

/**
 * Live mode refuses the public test-mode samples by their likeness signatures, built beside them
 * (assets/sample-signatures.json). Matching only: the pipeline that would read them is not run.
 */
const ASSETS = path.join(__dirname, '..', 'assets');
const FILE = path.join(ASSETS, 'sample-signatures.json');
const stored = JSON.parse(readFileSync(FILE, 'utf8')) as {
  flat_images_left_out: string[];
  samples: { files: string[]; signature: string }[];
};
const sampleFiles = SAMPLE_FOLDERS.flatMap((folder) =>
  readdirSync(path.join(ASSETS, folder))
    .filter((name) => name.endsWith('.jpg'))
    .map((name) => `${folder}/${name}`),
);
const signatures = new SampleSignatures(FILE);

describe('the signatures of the shipped samples', () => {
  test('when the signatures file is compared with the sample images, then every image is in it as it is now', async () => {
    for (const file of sampleFiles) {
      const signature = await perceptualSignature(readFileSync(path.join(ASSETS, file)));
      if (isFlatSignature(signature)) {
        expect(stored.flat_images_left_out).toContain(file);
        continue;
      }
      expect(stored.samples.find((sample) => sample.files.includes(file))?.signature).toBe(signature);
    }
  });

  test.each(sampleFiles.filter((file) => !stored.flat_images_left_out.includes(file)))(
    'when %s is sent as it is, re-encoded by the upload checks, or rescaled and re-compressed, then it is a sample',
    async (file) => {
      const image = readFileSync(path.join(ASSETS, file));
      const prepared = await prepareUpload(image);
      if (!prepared.ok) throw new Error(`${file} refused: ${prepared.reason}`);
      const { width = 1 } = await sharp(image).metadata();
      const smaller = await sharp(image)
        .resize({ width: Math.round(width * 0.7) })
        .jpeg({ quality: 70 })
        .toBuffer();

      for (const copy of [image, prepared.jpeg, smaller]) await expect(signatures.anyIsSample([copy])).resolves.toBe(true);
    },
  );

  test('when the blank frames of the no-face sequence are sent, then they are not told from any blank frame', async () => {
    expect(stored.flat_images_left_out.length).toBeGreaterThan(0);
    for (const file of stored.flat_images_left_out) {
      await expect(signatures.anyIsSample([readFileSync(path.join(ASSETS, file))])).resolves.toBe(false);
    }
  });
});

describe('photos that are not samples', () => {
  test('when other documents of the sample layouts are photographed, then none is taken for a sample', async () => {
    for (const variant of ['dni_2012_9', 'passport_arg'] as const) {
      for (const profile of ['clean', 'perspective'] as const) {
        const images = await generateDocumentImages(1, {
          ...DEFAULT_GENERATE_OPTIONS,
          seed: 4004,
          width: 1400,
          height: 1000,
          variants: [variant],
          profiles: [profile],
        });
        await expect(signatures.anyIsSample(images.map((photo) => photo.image))).resolves.toBe(false);
      }
    }
  });

  test('when faces other than the samples are sent, then none is taken for a sample', async () => {
    // The face samples were made from two of face-api's demo photos (docs/faces.md); the others are strangers.
    const fromFaces = createRequire(require.resolve('@idv/faces/package.json'));
    const demo = path.join(path.dirname(fromFaces.resolve('@vladmandic/face-api')), '..', 'demo');
    for (const photo of ['sample2.jpg', 'sample3.jpg', 'sample5.jpg', 'sample6.jpg']) {
      const frame = await sharp(path.join(demo, photo)).resize(320, 320).jpeg().toBuffer();
      await expect(signatures.anyIsSample([frame])).resolves.toBe(false);
    }
  });
});
