import { parentPort } from 'node:worker_threads';
import { assessImageQuality, readSide, stopEngines } from '@idv/verification/tooling';
import { cachedDocumentImages } from './cache';
import type { GenerateOptions, SampleLabel } from './generate';

/**
 * A worker of the calibration: generates one document's images, measures their quality (every feature
 * the recapture model may use) and, for the profiles that calibrate the capture limits, reads them with
 * the service's own `readSide` to know whether the barcode and MRZ were read. Returns rows, never images.
 */
export interface CalibrationTask {
  index: number;
  options: GenerateOptions;
  /** Where the corpus is cached (see cache.ts). */
  corpusRoot: string;
  /** Whether to read this document's sides with `readSide` (its read results are not cached yet). */
  read: boolean;
}

export interface CalibrationRow {
  id: string;
  seed: number;
  index: number;
  variant: SampleLabel['variant'];
  side: SampleLabel['side'];
  profile: SampleLabel['degradation']['profile'];
  recapture: 'screen' | 'print' | null;
  degradation: {
    blur_sigma: number;
    jpeg_quality: number;
    gain: number;
    glare_strength: number | null;
    glare_over: string[];
    pixel_pitch_px: number | null;
    halftone_period_px: number | null;
  };
  quality: { blur: number; glare: number; brightness: number; ms: number; features: Record<string, number> };
  read: { barcode_expected: boolean; barcode_ok: boolean; mrz_expected: boolean; mrz_ok: boolean; ms: number } | null;
}

function barcodeMatches(text: string | undefined, payload: string): boolean {
  if (text === undefined) return false;
  // A Latin-1 decoder shows a UTF-8 payload as mojibake; either way the bytes are the label's.
  return text === payload || Buffer.from(text, 'latin1').toString('utf8') === payload;
}

async function rowsFor(task: CalibrationTask): Promise<CalibrationRow[]> {
  const rows: CalibrationRow[] = [];
  for (const { image, label } of await cachedDocumentImages(task.corpusRoot, task.index, task.options)) {
    const quality = await assessImageQuality(image);
    let read: CalibrationRow['read'] = null;
    if (task.read && (label.barcode !== null || label.mrz !== null)) {
      const started = performance.now();
      const reading = await readSide(image, {
        side: label.side,
        acceptedTypes: ['dni', 'passport', 'licence'],
        today: label.reference_date,
      });
      read = {
        barcode_expected: label.barcode !== null,
        barcode_ok: label.barcode !== null && barcodeMatches(reading.barcode?.text, label.barcode.payload),
        mrz_expected: label.mrz !== null,
        mrz_ok: label.mrz !== null && reading.mrz?.lines.join('\n') === label.mrz.lines.join('\n'),
        ms: performance.now() - started,
      };
    }
    const recapture = label.degradation.recapture;
    rows.push({
      id: label.id,
      seed: label.seed,
      index: label.index,
      variant: label.variant,
      side: label.side,
      profile: label.degradation.profile,
      recapture: recapture?.kind ?? null,
      degradation: {
        blur_sigma: label.degradation.blur_sigma,
        jpeg_quality: label.degradation.jpeg_quality,
        gain: label.degradation.lighting.gain,
        glare_strength: label.degradation.glare?.strength ?? null,
        glare_over: label.degradation.glare?.over_regions ?? [],
        pixel_pitch_px: recapture?.kind === 'screen' ? recapture.pixel_pitch_px : null,
        halftone_period_px: recapture?.kind === 'print' ? recapture.halftone_period_px : null,
      },
      quality: {
        blur: quality.blur,
        glare: quality.glare,
        brightness: quality.brightness,
        ms: quality.ms,
        features: quality.screen.features,
      },
      read,
    });
  }
  return rows;
}

const port = parentPort;
if (port !== null) {
  port.on('message', (message: CalibrationTask | 'stop') => {
    if (message === 'stop') {
      void stopEngines().finally(() => port.close());
      return;
    }
    rowsFor(message).then(
      (rows) => port.postMessage({ ok: true, rows }),
      (error: unknown) =>
        port.postMessage({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
}
