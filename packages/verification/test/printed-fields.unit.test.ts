import { stopReaders } from '../src';
import type { GreyRaster } from '../src/image/raster';
import { cardFrame, readPrintedFields } from '../src/readers/printed.reader';

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
  await stopReaders();
});

describe('readPrintedFields', () => {
  it('when the 2009 layout is asked to confirm within two fields and they read nothing, then it stops after two passes', async () => {
    const frame = await cardFrame(blankCard(), MRZ_QUAD, 'height');

    const reading = await readPrintedFields(frame, 'dni_2009_front', null, { confirmWithin: 2 });

    expect(reading.passes).toBe(2);
    expect(reading.fields).toEqual({});
  });

  it('when every field is asked for, then each crop of the layout gets its pass', async () => {
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
