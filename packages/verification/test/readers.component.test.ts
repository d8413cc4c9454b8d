import fs from 'node:fs';
import path from 'node:path';
import bwipjs from 'bwip-js';
import sharp from 'sharp';
import { readSide, startEngines, stopEngines } from '../src/tooling';
import { decodeGrey, rotateRaster } from '../src/image/raster';
import { searchMrzZone } from '../src/readers/mrz.reader';
import { SafetyClock, WorkBudget } from '../src/readers/work-budget';
import { REFERENCE_DOCUMENTS_DIR } from './reference-data';

const TODAY = '2026-11-23';
const DNI_PAYLOAD = '00123456789@PEREZ@JUAN CARLOS@M@26756539@B@15/03/1978@20/04/2017@203';

function referenceImage(relative: string): Buffer {
  const file = path.join(REFERENCE_DOCUMENTS_DIR, 'images', relative);
  if (!fs.existsSync(file))
    throw new Error(`reference image ${file} is missing: shared/ must be checked out beside the repository`);
  return fs.readFileSync(file);
}

/** A card-like 1400×880 JPEG with a DNI PDF417 at its bottom right, turned by `degrees`. */
async function syntheticCard(degrees: number): Promise<Buffer> {
  const symbol = await bwipjs.toBuffer({ bcid: 'pdf417', text: DNI_PAYLOAD, scale: 2, height: 8 });
  const { width = 0, height = 0 } = await sharp(symbol).metadata();
  const card = await sharp({ create: { width: 1400, height: 880, channels: 3, background: '#e6eef0' } })
    .composite([{ input: symbol, left: 1360 - width, top: 840 - height }])
    .png()
    .toBuffer();
  return sharp(card).rotate(degrees, { background: '#9a9a9a' }).jpeg({ quality: 75 }).toBuffer();
}

afterAll(async () => {
  await stopEngines();
});

describe('readSide on generated barcodes', () => {
  it.each([0, 90, 180, 270, 12, -12])(
    'when the card is turned by %i°, then its PDF417 is decoded and parsed',
    async (degrees) => {
      // Tilts are found along the ladder (or at the located symbol's own angle); the budgets are
      // counted, so the outcome does not depend on the machine's load.
      const reading = await readSide(await syntheticCard(degrees), {
        side: 'front',
        acceptedTypes: ['dni'],
        today: TODAY,
      });

      expect(reading.barcode?.text).toBe(DNI_PAYLOAD);
      expect(reading.barcode_fields).toMatchObject({ number: '26756539', surname: 'PEREZ', cuil: '20-26756539-3' });
      expect(reading.detected_type).toBe('dni');
    },
  );
});

describe('the engines', () => {
  it('when they are started, stopped and used again, then the read after the stop starts them again and reads the same', async () => {
    await startEngines();
    const options = { side: 'front', acceptedTypes: ['dni'], today: TODAY } as const;
    const first = await readSide(await syntheticCard(0), options);

    await stopEngines();
    const second = await readSide(await syntheticCard(0), options);

    expect(first.barcode?.text).toBe(DNI_PAYLOAD);
    expect(second.barcode?.text).toBe(first.barcode?.text);
    expect(second.barcode_fields).toEqual(first.barcode_fields);
  });
});

describe('readSide on the reference specimens', () => {
  it('when the 2012 DNI front is read, then its PDF417 gives the specimen payload and the portrait is cropped', async () => {
    const reading = await readSide(referenceImage('dni/ar_dni_2012_specimen_front_villareal.jpg'), {
      side: 'front',
      acceptedTypes: ['dni'],
      today: TODAY,
    });

    expect(reading.barcode?.text).toBe('00000010532@VILLAREAL@MARIA VICTORIA@F@99999999@A@01/11/1969@31/10/2009');
    expect(reading.barcode?.layout).toBe('new_2012');
    expect(reading.detected_face).toBe('front');
    expect(reading.problems).not.toContain('other_side');
    const crop = await sharp(reading.face_crop ?? Buffer.alloc(0)).metadata();
    expect(crop.height).toBeGreaterThan(crop.width);
  });

  it('when the 2012 DNI front is read as the angled front, then its barcode identifies it and its print is not read', async () => {
    const reading = await readSide(referenceImage('dni/ar_dni_2012_specimen_front_villareal.jpg'), {
      side: 'front_angle',
      acceptedTypes: ['dni'],
      today: TODAY,
    });

    expect(reading.barcode_fields).toMatchObject({ number: '99999999', surname: 'VILLAREAL' });
    // The front's print, which the checks need, is settled before the front is taken.
    expect(reading.work.printed_ocr_passes).toBe(0);
    expect(reading.printed).toBeNull();
    expect(reading.problems).not.toContain('print_unreadable');
  });

  it('when the 2009 DNI is read, then its TD1 MRZ lines are read and fail only the number check', async () => {
    const reading = await readSide(referenceImage('dni/ar_dni_2009_specimen_villareal.jpg'), {
      side: 'front',
      acceptedTypes: ['dni'],
      today: TODAY,
    });

    expect(reading.mrz?.lines).toEqual([
      'IDARG999999972<<<<<<<<<<<<<<<<',
      '6911029F2409294ARG<<<<<<<<<<<6',
      'VILLAREAL<<MARIA<VICTORIA<<<<<',
    ]);
    expect(reading.mrz?.check_digits).toEqual({ document_number: false, birth_date: true, expiry_date: true, composite: true });
    expect(reading.detected_type).toBe('dni');
  });

  it('when the TD3 passport specimen is read upside down, then its MRZ is valid and the photo is cropped', async () => {
    const upsideDown = await sharp(referenceImage('mrz/passporteye_passport-td3.jpg')).rotate(180).jpeg().toBuffer();
    const reading = await readSide(upsideDown, { side: 'front', acceptedTypes: ['passport'], today: TODAY });

    expect(reading.mrz?.valid).toBe(true);
    expect(reading.mrz?.lines[1]).toBe('L898902C36UTO7408122F1204159ZE184226B<<<<<10');
    // No check digit covers the names: they are given back once the second engine read them the same.
    expect(reading.mrz?.names_second_read).toBe('agreed');
    expect(reading.mrz_fields).toMatchObject({ surname: 'ERIKSSON', given_names: 'ANNA MARIA' });
    expect(reading.detected_type).toBe('passport');
    expect(reading.detected_face).toBe('data_page');
    expect(reading.face_crop).not.toBeNull();
    // The visual zone's number is read too: `L89890203` (C read as 0, an OCR confusion, not another digit).
    expect(reading.printed?.layout).toBe('passport_td3');
    expect(reading.printed?.fields.number).toBe('L898902C3');
  });

  it('when every OCR pass outlasts the search’s cap per pass, then the search ends with no reading (the cap a recapture gets)', async () => {
    const raster = await decodeGrey(referenceImage('mrz/passporteye_passport-td3.jpg'));
    const search = async (ocrTimeoutMs?: number) =>
      (await searchMrzZone(raster, { angles: [0], budget: new WorkBudget(8, new SafetyClock(30_000)), ocrTimeoutMs }))
        .namesJudged;

    const cut = await search(1);
    expect(cut.found).toBeNull();
    expect(cut.attempts).toBe(1);

    const whole = await search();
    expect(whole.found?.valid).toBe(true);
  });

  it('when the zone is read, then its names are judged afterwards and the judging changes nothing but the names', async () => {
    const raster = await decodeGrey(referenceImage('mrz/passporteye_passport-td3.jpg'));
    const search = await searchMrzZone(raster, { angles: [0], budget: new WorkBudget(8, new SafetyClock(30_000)) });
    const judged = await search.namesJudged;

    expect(search.found?.valid).toBe(true);
    expect(search.found?.names_second_read).toBeNull();
    expect(judged.found?.names_second_read).not.toBeNull();
    const { names_second_read: _zoneVerdict, lines: zoneLines, data: zoneData, ...zoneRest } = search.found!;
    const { names_second_read: _verdict, lines, data, ...rest } = judged.found!;
    expect(rest).toEqual(zoneRest);
    // A passport's names are its first line; the second, every check digit's, stays.
    expect(lines.slice(1)).toEqual(zoneLines.slice(1));
    expect(data.fields.document_number).toBe(zoneData.fields.document_number);
    expect(judged.attempts).toBe(search.attempts + 1);
  });

  it('when a raster is turned twice by the same angle, then the turn is reused; another angle is turned anew', async () => {
    const raster = await decodeGrey(referenceImage('mrz/passporteye_passport-td3.jpg'));
    const once = await rotateRaster(raster, 7.5);
    const again = await rotateRaster(raster, 7.5);
    const other = await rotateRaster(raster, -7.5);
    const fresh = await rotateRaster({ ...raster }, 7.5);

    expect(again).toBe(once);
    expect(other).not.toBe(once);
    expect(fresh).not.toBe(once);
    expect(Buffer.compare(fresh.data, once.data)).toBe(0);
    expect(await rotateRaster(raster, 360)).toBe(raster);
  });

  it('when an upload is not an image, then readSide reports it and does not throw', async () => {
    const reading = await readSide(Buffer.from('not an image'), { side: 'back', acceptedTypes: ['dni'], today: TODAY });

    expect(reading.problems).toEqual(['unreadable_image']);
    expect(reading.refusal).toBe('unsupported_type');
  });
});
