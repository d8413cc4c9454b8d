import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import {
  ANGLED_FRONT_LIMITS,
  findCardOutline,
  judgeAngledFront,
  outlineChange,
  perceptualSignature,
  signatureDistance,
} from '../src/tooling';
import type { Point } from '../src/image/geometry';
import { corpusFile, generateCorpus } from './corpus-data';

// One 2012 DNI of the calibration's seed (docs/documents.md "The angled front"), on a dark fabric: its
// front flat (`clean`), at an angle (`perspective`, 15° from the flat one) and flat again but turned in
// the plane (`tilt`), at the calibration's size.
const SEED = 4004;
const INDEX = 0;

interface Photo {
  image: Buffer;
  card: Point[];
}

const photos: Partial<Record<'clean' | 'perspective' | 'tilt', Photo>> = {};

beforeAll(() => {
  for (const profile of ['clean', 'perspective', 'tilt'] as const) {
    const dir = generateCorpus(
      SEED,
      [INDEX],
      [
        '--variants',
        'dni_2012_9',
        '--degradations',
        profile,
        '--width',
        '1400',
        '--height',
        '1000',
        '--defect-rate',
        '0',
        '--expired-rate',
        '0',
      ],
    );
    try {
      const label = JSON.parse(fs.readFileSync(path.join(dir, 'labels.jsonl'), 'utf8').split('\n')[0]!) as {
        regions: { card: { quad: [number, number][] } };
      };
      photos[profile] = {
        image: fs.readFileSync(path.join(dir, corpusFile(SEED, INDEX, 'front'))),
        card: label.regions.card.quad.map(([x, y]) => ({ x, y })),
      };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}, 60_000);

const photo = (profile: keyof typeof photos): Photo => {
  const found = photos[profile];
  if (!found) throw new Error(`no ${profile} photo`);
  return found;
};

async function evidence(image: Buffer) {
  return { image_signature: await perceptualSignature(image), card_outline: await findCardOutline(image) };
}

describe('the card outline', () => {
  test('when a card lies on a darker surface, then its outline is found within a few pixels of its corners', async () => {
    const { image, card } = photo('clean');

    const outline = await findCardOutline(image);

    expect(outline).not.toBeNull();
    for (const corner of card) {
      const nearest = Math.min(...outline!.corners.map((found) => Math.hypot(found.x - corner.x, found.y - corner.y)));
      expect(nearest).toBeLessThan(5);
    }
  });

  test('when a photo shows no document, then no outline is found', async () => {
    const blank = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 120, g: 120, b: 115 } } })
      .jpeg()
      .toBuffer();

    await expect(findCardOutline(blank)).resolves.toBeNull();
  });

  test('when an outline is turned, moved, scaled and its corners listed from another one, then its shape has not changed', () => {
    const quad = [
      { x: 100, y: 100 },
      { x: 500, y: 120 },
      { x: 490, y: 360 },
      { x: 95, y: 350 },
    ];
    const turn = (p: Point) => ({
      x: 0.7 * (p.x * Math.cos(0.4) - p.y * Math.sin(0.4)) + 31,
      y: 0.7 * (p.x * Math.sin(0.4) + p.y * Math.cos(0.4)) - 7,
    });
    const moved = [quad[2]!, quad[3]!, quad[0]!, quad[1]!].map(turn);
    // The far side shorter: the card tilted about its vertical axis.
    const keystoned = [quad[0]!, { x: 480, y: 150 }, { x: 475, y: 330 }, quad[3]!];

    expect(outlineChange(quad, moved)).toBeLessThan(1e-6);
    expect(outlineChange(quad, keystoned)).toBeGreaterThan(ANGLED_FRONT_LIMITS.minOutlineChange);
  });
});

describe('the angled front against the front', () => {
  test('when the front photo is sent again, re-encoded or rescaled, then it is a copy', async () => {
    const front = photo('clean').image;
    const copies = [
      front,
      await sharp(front).jpeg({ quality: 60 }).toBuffer(),
      await sharp(front).resize({ width: 800 }).jpeg({ quality: 85 }).toBuffer(),
      await sharp(front).linear(1.08, 0).png().toBuffer(),
    ];
    const frontEvidence = await evidence(front);

    for (const copy of copies) {
      expect(judgeAngledFront(frontEvidence, await evidence(copy)).verdict).toBe('copy');
    }
  });

  test('when the front photo is sent turned by a quarter, then its outline shows the card was not tilted', async () => {
    const front = photo('clean').image;
    const turned = await sharp(front).rotate(90).jpeg({ quality: 90 }).toBuffer();

    const judgement = judgeAngledFront(await evidence(front), await evidence(turned));

    expect(judgement.verdict).toBe('not_tilted');
  });

  test('when the card is photographed again from the same angle, turned in the plane, then it was not tilted', async () => {
    const judgement = judgeAngledFront(await evidence(photo('clean').image), await evidence(photo('tilt').image));

    expect(judgement.verdict).toBe('not_tilted');
    expect(judgement.distance).toBeGreaterThan(ANGLED_FRONT_LIMITS.maxCopyDistance);
  });

  test('when the card is photographed held at an angle, then it is tilted', async () => {
    const judgement = judgeAngledFront(await evidence(photo('clean').image), await evidence(photo('perspective').image));

    expect(judgement.verdict).toBe('tilted');
  });

  test('when two signatures are of blank pictures, then they are unlike anything, each other included', async () => {
    const blank = await perceptualSignature(
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#777777' } })
        .png()
        .toBuffer(),
    );

    expect(signatureDistance(blank, blank)).toBe(1);
  });
});
