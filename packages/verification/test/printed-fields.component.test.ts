import fs from 'node:fs';
import path from 'node:path';
import { readDocument, stopEngines } from '../src/tooling';
import type { GreyRaster } from '../src/image/raster';
import { cardFrame, readPrintedFields, snapToTextRow } from '../src/readers/printed.reader';
import { corpusFile, generateCorpus } from './corpus-data';

/**
 * The printed fields' passes: a layout whose first crops read nothing is not the card's, so its other
 * crops are not read; a caller that needs only some fields pays only for those.
 */
function blankCard(): GreyRaster {
  // Light paper with no print: every crop of every layout reads nothing.
  return { data: Buffer.alloc(900 * 560, 232), width: 900, height: 560 };
}

// Where a 2009 front's MRZ (98 px tall) would stand on a card of this size.
const MRZ_QUAD = {
  topLeft: { x: 91, y: 366 },
  topRight: { x: 860, y: 366 },
  bottomRight: { x: 860, y: 464 },
  bottomLeft: { x: 91, y: 464 },
};

afterAll(async () => {
  await stopEngines();
});

/** A DNI of the corpus (front and back), generated for the call and read as the service reads it. */
async function readCorpusDni(seed: number, index: number): ReturnType<typeof readDocument> {
  const dir = generateCorpus(seed, [index]);
  try {
    const side = (name: 'front' | 'back') => ({
      side: name,
      image: fs.readFileSync(path.join(dir, corpusFile(seed, index, name))),
    });
    return await readDocument([side('front'), side('back')], { acceptedTypes: ['dni'], today: '2026-11-23' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('readPrintedFields', () => {
  it('when the 2009 layout must find two of its labels and the card shows none, then no value is read', async () => {
    const frame = await cardFrame(blankCard(), MRZ_QUAD, 'height');

    const reading = await readPrintedFields(frame, 'dni_2009_front', null, { minLabels: 2 });

    expect(reading.passes).toBe(0);
    expect(reading.labels).toEqual([]);
    expect(reading.fields).toEqual({});
  });

  it('when no label is found, then each field the specimen places gets one pass where the specimen has it', async () => {
    const frame = await cardFrame(blankCard(), MRZ_QUAD, 'height');

    const reading = await readPrintedFields(frame, 'dni_2009_front');

    expect(reading.passes).toBe(5);
  });

  it('when only the expiry date is asked for, then one pass is made, on that field', async () => {
    const frame = await cardFrame(blankCard(), MRZ_QUAD, 'height');

    const reading = await readPrintedFields(frame, 'dni_2009_front', null, { only: ['expiry_date'] });

    expect(reading.passes).toBe(1);
    expect(Object.keys(reading.raw)).toEqual(['expiry_date']);
  });
});

/** Paper with dark rows of "text" (rows of short strokes) at the given pixel rows. */
function paperWithRows(rows: readonly { top: number; bottom: number }[], width = 600, height = 300): GreyRaster {
  const data = Buffer.alloc(width * height, 230);
  for (const { top, bottom } of rows) {
    for (let y = top; y < bottom; y += 1) {
      // Strokes 3 px wide every 7 px, as letters leave paper between them.
      for (let x = 40; x < width - 40; x += 1) if (x % 7 < 3) data[y * width + x] = 30;
    }
  }
  return { data, width, height };
}

describe('snapToTextRow', () => {
  const origin = { x: 0, y: 0 };
  const unit = 100;
  // A value row (16 px) printed higher than the box expects, its label (8 px) above it.
  const box = { x0: 0.5, x1: 5, y0: 0.75, y1: 0.95 };

  it('when the value stands across the top of its box, then the box moves onto the value, not onto its label', () => {
    const raster = paperWithRows([
      { top: 40, bottom: 48 },
      { top: 60, bottom: 76 },
    ]);

    const snapped = snapToTextRow(raster, origin, unit, box);

    expect(snapped.y0 * unit).toBeLessThanOrEqual(60);
    expect(snapped.y0 * unit).toBeGreaterThan(48);
    expect(snapped.y1 * unit).toBeGreaterThanOrEqual(76);
    expect(snapped.y1 * unit).toBeLessThan(90);
    expect([snapped.x0, snapped.x1]).toEqual([box.x0, box.x1]);
  });

  it('when two value rows are in the window, then the one nearer the box centre is taken', () => {
    // The box's centre is at 85 px: the rows' centres at 70 and 96.
    const raster = paperWithRows([
      { top: 62, bottom: 78 },
      { top: 88, bottom: 104 },
    ]);

    const snapped = snapToTextRow(raster, origin, unit, box);

    expect(snapped.y0 * unit).toBeGreaterThan(78);
    expect(snapped.y0 * unit).toBeLessThanOrEqual(88);
    expect(snapped.y1 * unit).toBeGreaterThanOrEqual(104);
  });

  it('when the window is blank paper, then the box is kept', () => {
    expect(snapToTextRow(paperWithRows([]), origin, unit, box)).toEqual(box);
  });

  it('when the window is one dark blob taller than the box (a table, a shadow), then the box is kept', () => {
    expect(snapToTextRow(paperWithRows([{ top: 50, bottom: 120 }]), origin, unit, box)).toEqual(box);
  });
});

describe('a 2009 front whose values stand higher than the specimen measured', () => {
  // Corpus seed 99, document 62: a 2009 card photographed turned 90°, its printed number altered
  // (9.922.010 for 9722010 in its MRZ and barcode). Its values stand about 0.1 MRZ heights above where
  // the specimen's do: before the crops were moved onto their rows, no field was read on this front and
  // the card was accepted.
  it('when the card is read, then its printed names and number are read and the altered number is a data mismatch', async () => {
    const reading = await readCorpusDni(99, 62);

    const front = reading.sides.find((side) => side.side === 'front');
    expect(front?.printed?.layout).toBe('dni_2009_front');
    expect(front?.printed?.fields).toMatchObject({ given_names: 'MARIA JOSE', number: '9922010' });
    expect(front?.detected_face).toBe('front');
    expect(reading.reasons).toEqual(['document_data_mismatch']);
    expect(reading.checks.find((check) => check.name === 'data_consistency')).toMatchObject({ fields: ['number'] });
  }, 60_000);
});

describe('a dim photo of a 2012 front', () => {
  // Corpus seed 99, document 77: a 2012 card in low light (mean luma 32), its printed number altered
  // (62.826.038 for 42826038 in its barcode and MRZ). Its paper lies under the ink threshold with its
  // ink: before its crops were stretched first, every crop was black, no field was read and the card was
  // accepted.
  it('when the card is read, then its printed number is read and the altered number is a data mismatch', async () => {
    const reading = await readCorpusDni(99, 77);

    const front = reading.sides.find((side) => side.side === 'front');
    expect(front?.printed?.fields).toMatchObject({ number: '62826038' });
    expect(reading.reasons).toEqual(['document_data_mismatch']);
    expect(reading.checks.find((check) => check.name === 'data_consistency')).toMatchObject({ fields: ['number'] });
  }, 60_000);
});
