import { readFileSync } from 'node:fs';
import { prepareZXingModule, readBarcodes, type ReaderOptions, type ReadResult } from 'zxing-wasm/reader';

/**
 * zxing-wasm, loaded once per thread from the package's own `zxing_reader.wasm` (by default the library
 * fetches it from a CDN: nothing may be downloaded at run time here). The module is created on first use
 * and kept for the life of the thread.
 */
let ready: Promise<unknown> | null = null;

/** Loads the barcode reader's module ahead of the first decode (engines.ts). */
export async function loadBarcodeModule(): Promise<void> {
  await ensureModule();
}

function ensureModule(): Promise<unknown> {
  if (ready === null) {
    const file = readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm'));
    const wasmBinary = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
    ready = prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true });
  }
  return ready;
}

export type DocumentBarcodeFormat = 'PDF417' | 'QRCode';

export interface RgbaPixels {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

export async function decodeBarcodes(
  pixels: RgbaPixels,
  formats: readonly DocumentBarcodeFormat[],
  options: Pick<ReaderOptions, 'binarizer' | 'tryHarder' | 'tryRotate' | 'tryDownscale'> = {},
): Promise<ReadResult[]> {
  await ensureModule();
  return readBarcodes(pixels, {
    formats: [...formats],
    maxNumberOfSymbols: 1,
    tryHarder: true,
    // zxing's own 90/180/270 search: the rotation ladder only needs the angles in between.
    tryRotate: true,
    tryInvert: false,
    ...options,
  });
}
