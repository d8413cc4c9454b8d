import { createHash } from 'node:crypto';
import sharp from 'sharp';
import {
  DEFAULT_GENERATE_OPTIONS,
  DEGRADATION_PROFILES,
  applyHomography,
  assignment,
  generateDocumentImages,
  homographyFromQuads,
  rectQuad,
  type CorpusImage,
  type GenerateOptions,
  type Quad,
  type SampleLabel,
} from '../src';

// Small images keep this quick; the layouts and degradations are the same at every size.
const OPTIONS: GenerateOptions = { ...DEFAULT_GENERATE_OPTIONS, seed: 11, width: 480, height: 360 };

interface Decoded {
  data: Buffer;
  width: number;
  height: number;
}

async function decode(image: Buffer): Promise<Decoded> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function luma(image: Decoded, x: number, y: number): number {
  const offset = (Math.round(y) * image.width + Math.round(x)) * 3;
  return 0.299 * (image.data[offset] ?? 0) + 0.587 * (image.data[offset + 1] ?? 0) + 0.114 * (image.data[offset + 2] ?? 0);
}

/** Luma of the points of a quad, on an n×n grid of its interior (bilinear in the quad's corners). */
function lumaInside(image: Decoded, quad: Quad, n = 24): number[] {
  const values: number[] = [];
  for (let i = 1; i < n; i += 1) {
    for (let j = 1; j < n; j += 1) {
      const s = i / n;
      const t = j / n;
      const [a, b, c, d] = quad;
      const x = (1 - t) * ((1 - s) * a[0] + s * b[0]) + t * ((1 - s) * d[0] + s * c[0]);
      const y = (1 - t) * ((1 - s) * a[1] + s * b[1]) + t * ((1 - s) * d[1] + s * c[1]);
      if (x >= 0 && y >= 0 && x < image.width - 1 && y < image.height - 1) values.push(luma(image, x, y));
    }
  }
  return values;
}

const mean = (values: readonly number[]): number => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

/** Whether `point` lies inside the convex quad (with a tolerance in pixels). */
function insideQuad(quad: Quad, point: readonly [number, number], tolerance: number): boolean {
  let sign = 0;
  for (let index = 0; index < 4; index += 1) {
    const [ax, ay] = quad[index]!;
    const [bx, by] = quad[(index + 1) % 4]!;
    const cross = ((bx - ax) * (point[1] - ay) - (by - ay) * (point[0] - ax)) / Math.hypot(bx - ax, by - ay);
    if (Math.abs(cross) <= tolerance) continue;
    const current = Math.sign(cross);
    if (sign !== 0 && current !== sign) return false;
    sign = current;
  }
  return true;
}

let corpus: CorpusImage[] = [];

beforeAll(async () => {
  // One document per profile.
  for (let index = 0; index < DEGRADATION_PROFILES.length; index += 1)
    corpus.push(...(await generateDocumentImages(index, OPTIONS)));
});

afterAll(() => {
  corpus = [];
});

const byProfile = (profile: string): CorpusImage[] => corpus.filter(({ label }) => label.degradation.profile === profile);

describe('corpus images', () => {
  it('when the same document is generated twice with one seed, then the images are byte-identical; another seed changes them', async () => {
    const screenIndex = DEGRADATION_PROFILES.indexOf('screen');
    const printIndex = DEGRADATION_PROFILES.indexOf('print');
    // The recaptures go through every step (the first photo, then the display or the print).
    const small = { ...OPTIONS, width: 320, height: 240 };
    for (const index of [screenIndex, printIndex]) {
      const first = await generateDocumentImages(index, small);
      const again = await generateDocumentImages(index, small);
      expect(again.map(({ image }, side) => image.equals(first[side]!.image))).toEqual(first.map(() => true));
      expect(again.map(({ label }) => JSON.stringify(label))).toEqual(first.map(({ label }) => JSON.stringify(label)));
      const other = await generateDocumentImages(index, { ...small, seed: OPTIONS.seed + 1 });
      expect(other.map(({ label }) => label.sha256)).not.toEqual(first.map(({ label }) => label.sha256));
    }
  });

  it('when a label names a file, then its hash, size and dimensions are those of the image', async () => {
    for (const { image, label } of corpus) {
      expect(createHash('sha256').update(image).digest('hex')).toBe(label.sha256);
      expect(image.length).toBe(label.bytes);
      const metadata = await sharp(image).metadata();
      expect([metadata.format, metadata.width, metadata.height]).toEqual(['jpeg', label.width, label.height]);
    }
  });

  it('when documents are generated, then each profile goes to the document the assignment gives it', () => {
    for (const { label } of corpus) {
      expect(assignment(label.index, OPTIONS)).toEqual({ variant: label.variant, profile: label.degradation.profile });
      expect(label.expected.recapture).toBe(label.degradation.recapture?.kind ?? null);
      expect(label.expected.reason_codes.includes('document_screen_detected')).toBe(label.expected.recapture !== null);
    }
  });

  it('when a photo is not a recapture, then the card lies inside the image and every labelled region inside the card', () => {
    for (const { label } of corpus.filter(({ label: candidate }) => candidate.degradation.recapture === null)) {
      const card = label.regions.card!.quad;
      for (const [x, y] of card) {
        expect(x).toBeGreaterThanOrEqual(-1);
        expect(y).toBeGreaterThanOrEqual(-1);
        expect(x).toBeLessThanOrEqual(label.width + 1);
        expect(y).toBeLessThanOrEqual(label.height + 1);
      }
      for (const [name, region] of Object.entries(label.regions)) {
        if (name === 'card') continue;
        for (const corner of region.quad) expect({ name, inside: insideQuad(card, corner, 1.5) }).toEqual({ name, inside: true });
      }
    }
  });

  it('when a side carries a barcode or an MRZ, then its labelled region holds dark marks on a light ground', async () => {
    const focused = corpus.filter(({ label }) => ['clean', 'tilt', 'perspective'].includes(label.degradation.profile));
    let checked = 0;
    for (const { image, label } of focused) {
      const decoded = await decode(image);
      for (const name of ['barcode', 'mrz'] as const) {
        const region = label.regions[name];
        if (region === undefined) continue;
        const values = lumaInside(decoded, region.quad, 80).sort((a, b) => a - b);
        const quantile = (q: number): number => values[Math.floor(q * (values.length - 1))] ?? 0;
        // Dark marks (the darkest twentieth well below the ground) on a light ground.
        const marks = quantile(0.05) < 0.6 * quantile(0.9) && quantile(0.9) > 150;
        expect({ id: label.id, name, marks }).toEqual({ id: label.id, name, marks: true });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('when the profile is glare, then the image is as bright as the glare light where the label puts it', async () => {
    const glared = byProfile('glare');
    expect(glared.length).toBeGreaterThan(0);
    for (const { image, label } of glared) {
      const decoded = await decode(image);
      const glare = label.degradation.glare!;
      const cardSize = label.layout === 'passport_data_page' ? { width: 1250, height: 880 } : { width: 856, height: 540 };
      const cardToImage = homographyFromQuads(rectQuad(0, 0, cardSize.width, cardSize.height), label.regions.card!.quad);
      const [x, y] = applyHomography(cardToImage, [glare.cx * cardSize.width, glare.cy * cardSize.height]);
      // The added light alone, less the exposure's spread (gain ≥ 0.92) and JPEG.
      expect(luma(decoded, x, y)).toBeGreaterThan(0.85 * Math.min(255, 255 * glare.strength));
    }
  });

  it('when the profile is low light, then the card is much darker than in a clean photo', async () => {
    const cardLuma = async (sample: CorpusImage): Promise<number> =>
      mean(lumaInside(await decode(sample.image), sample.label.regions.card!.quad));
    const clean = await Promise.all(byProfile('clean').map(cardLuma));
    const dark = await Promise.all(byProfile('low_light').map(cardLuma));
    expect(Math.max(...dark)).toBeLessThan(0.7 * Math.min(...clean));
  });

  it('when a label is written, then it carries the degradation parameters its profile varies', () => {
    const check = (label: SampleLabel): void => {
      const d = label.degradation;
      switch (d.profile) {
        case 'tilt':
          expect(Math.abs(d.tilt_deg)).toBeLessThanOrEqual(25);
          break;
        case 'rotated':
          expect([90, 180, 270].some((angle) => Math.abs(d.tilt_deg - angle) <= 3)).toBe(true);
          break;
        case 'blur':
          expect(d.blur_sigma).toBeGreaterThanOrEqual(0.8);
          break;
        case 'jpeg':
          expect(d.jpeg_quality).toBeGreaterThanOrEqual(30);
          expect(d.jpeg_quality).toBeLessThanOrEqual(90);
          break;
        case 'glare':
          expect(d.glare).not.toBeNull();
          break;
        case 'low_light':
          expect(d.lighting.gain).toBeLessThan(0.61);
          break;
        case 'screen':
          expect(d.recapture).toMatchObject({ kind: 'screen' });
          break;
        case 'print':
          expect(d.recapture).toMatchObject({ kind: 'print' });
          break;
        case 'clean':
        case 'perspective':
          expect(d.recapture).toBeNull();
          break;
      }
    };
    corpus.forEach(({ label }) => check(label));
  });
});
