import zlib from 'node:zlib';
import sharp from 'sharp';
import { prepareUpload, sniffImageType } from '../src/tooling';

/** A PNG whose header claims `width`×`height` with one tiny compressed IDAT: nothing near that size is allocated. */
function pngClaiming(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A small JPEG whose frame header (SOF) is rewritten to claim `width`×`height`: its scan covers 16×16 pixels. */
async function jpegClaiming(width: number, height: number): Promise<Buffer> {
  const jpeg = Buffer.from(
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#888888' } })
      .jpeg()
      .toBuffer(),
  );
  const sof = jpeg.findIndex((byte, i) => byte === 0xff && (jpeg[i + 1] === 0xc0 || jpeg[i + 1] === 0xc2));
  jpeg.writeUInt16BE(height, sof + 5);
  jpeg.writeUInt16BE(width, sof + 7);
  return jpeg;
}

function heicHeader(): Buffer {
  const box = Buffer.alloc(24);
  box.writeUInt32BE(24, 0);
  box.write('ftypheic', 4, 'latin1');
  box.write('mif1heic', 16, 'latin1');
  return Buffer.concat([box, Buffer.alloc(64)]);
}

describe('prepareUpload', () => {
  it('when the file is empty, then it is refused as empty', async () => {
    await expect(prepareUpload(Buffer.alloc(0))).resolves.toMatchObject({ ok: false, reason: 'empty' });
  });

  it('when a text file is named .jpg, then the bytes decide: unsupported_type', async () => {
    await expect(prepareUpload(Buffer.from('this is not a photo of a DNI\n'))).resolves.toMatchObject({
      ok: false,
      reason: 'unsupported_type',
    });
  });

  it('when a JPEG is truncated, then it is refused as corrupt', async () => {
    const jpeg = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#3366aa' } })
      .jpeg()
      .toBuffer();
    await expect(prepareUpload(jpeg.subarray(0, Math.floor(jpeg.length / 2)))).resolves.toMatchObject({
      ok: false,
      reason: 'corrupt',
    });
  });

  it('when a JPEG header claims 6000×6600 pixels over a few hundred bytes of data, then it is refused as corrupt', async () => {
    const claim = await jpegClaiming(6000, 6600);
    expect(claim.length).toBeLessThan(1_000);
    await expect(prepareUpload(claim)).resolves.toMatchObject({ ok: false, reason: 'corrupt' });
  });

  it('when a JPEG has stray bytes between two markers (as some phones write), then it is still taken', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#88aa88' } })
      .jpeg()
      .toBuffer();
    const huffman = jpeg.indexOf(Buffer.from([0xff, 0xc4]));
    const stray = Buffer.concat([jpeg.subarray(0, huffman), Buffer.from([1, 2, 3]), jpeg.subarray(huffman)]);
    await expect(prepareUpload(stray)).resolves.toMatchObject({ ok: true, width: 64, height: 48 });
  });

  it('when a PNG header claims 20000×20000 pixels, then it is refused before decoding', async () => {
    const bomb = pngClaiming(20_000, 20_000);
    expect(bomb.length).toBeLessThan(2_000);
    await expect(prepareUpload(bomb)).resolves.toMatchObject({ ok: false, reason: 'too_many_pixels' });
  });

  it('when the file is HEIC, then it is recognised and refused as heic', async () => {
    expect(sniffImageType(heicHeader())).toBe('heic');
    await expect(prepareUpload(heicHeader())).resolves.toMatchObject({ ok: false, reason: 'heic' });
  });

  it('when the file is larger than the limit, then it is refused as too_large', async () => {
    await expect(prepareUpload(Buffer.alloc(2048, 0xff), { maxBytes: 1024 })).resolves.toMatchObject({
      ok: false,
      reason: 'too_large',
    });
  });

  it('when a JPEG has EXIF orientation and GPS, then it comes out upright, downscaled and without metadata', async () => {
    const source = await sharp({ create: { width: 3000, height: 1000, channels: 3, background: '#ffffff' } })
      .composite([{ input: { create: { width: 300, height: 1000, channels: 3, background: '#000000' } }, left: 0, top: 0 }])
      .jpeg()
      .withMetadata({ orientation: 6, exif: { IFD3: { GPSLatitudeRef: 'S', GPSLatitude: '34/1 36/1 0/1' } } })
      .toBuffer();
    const prepared = await prepareUpload(source);
    if (!prepared.ok) throw new Error(`refused: ${prepared.reason}`);
    // Orientation 6 turns the 3000×1000 image into a 1000×3000 one, then the long side becomes 2000.
    expect([prepared.width, prepared.height]).toEqual([667, 2000]);
    const metadata = await sharp(prepared.jpeg).metadata();
    expect(metadata.format).toBe('jpeg');
    expect(metadata.exif).toBeUndefined();
    expect(metadata.orientation).toBeUndefined();
    expect(metadata.icc).toBeUndefined();
  });

  it('when a WebP and a PNG are given, then both become JPEGs', async () => {
    const base = sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } });
    for (const bytes of [await base.clone().webp().toBuffer(), await base.clone().png().toBuffer()]) {
      await expect(prepareUpload(bytes)).resolves.toMatchObject({ ok: true, width: 64, height: 48 });
    }
  });
});
