import { quadAngle } from '../image/geometry';
import { prepareUpload, type PreparedImage, type UploadRefusalReason } from '../image/prepare-upload';
import { decodeGrey, type GreyRaster } from '../image/raster';
import type { DocumentFields, DocumentType, Side } from '../model';
import { parseDniBarcode, type DniBarcodeLayout } from '../parsers/dni-barcode.parser';
import {
  documentTypeOfMrz,
  mrzToDocumentFields,
  type MrzCheckedField,
  type MrzFormat,
  type MrzProblem,
} from '../parsers/mrz.parser';
import { ALL_REGIONS, barcodePlan, searchBarcode, type BarcodeReading, type BarcodeStep } from '../readers/barcode.reader';
import { searchMrz, type MrzReading } from '../readers/mrz.reader';
import { estimatePageSkew } from '../readers/skew';
import { cardFrame, portraitCrop, readPrintedFields, type PrintedField, type PrintedLayout } from '../readers/printed.reader';
import { assessQuality, type QualityAssessment } from './quality-port';
import { perceptualHash } from './perceptual-hash';

/**
 * What one photographed side says, read by the one code path the service, the CLI and the benchmark
 * share. Keys are snake_case like the rest of the package's data (and `result.document`).
 */
export type SideFace = 'front' | 'back' | 'data_page';

export type SideProblem =
  /** The upload itself was refused (see `refusal`). */
  | 'unreadable_image'
  /** Neither a barcode, an MRZ nor printed fields were read. */
  | 'no_document'
  | 'blurry'
  | 'glare'
  | 'too_dark'
  | 'barcode_not_found'
  | 'mrz_not_found'
  /** The side shows the other face of the card (a back uploaded as the front, or the reverse). */
  | 'other_side'
  /** The document read is not among the accepted types. */
  | 'wrong_type';

export interface SideReading {
  side: Side;
  /** 'unsupported' for a document with an MRZ we do not verify (a foreign ID card, a visa). */
  detected_type: DocumentType | 'unsupported' | null;
  detected_face: SideFace | null;
  barcode: (Omit<BarcodeReading, 'quad'> & { layout: DniBarcodeLayout | null; parse_failure: string | null }) | null;
  barcode_fields: DocumentFields | null;
  mrz: {
    lines: string[];
    format: MrzFormat;
    valid: boolean;
    check_digits: Partial<Record<MrzCheckedField, boolean>>;
    problems: MrzProblem[];
    names_truncated: boolean;
    repaired_characters: number;
    angle: number;
    /** The OCR's lowest confidence in a letter of the names (see `MrzReading.name_confidence`). */
    name_confidence: number;
    /** A second OCR pass read the same names (see `MrzReading.names_corroborated`). */
    names_corroborated: boolean;
    /** The names were read too uncertainly to be given back: `mrz_fields` leaves them empty. */
    names_withheld: boolean;
  } | null;
  mrz_fields: DocumentFields | null;
  printed: { layout: PrintedLayout; fields: Partial<DocumentFields>; raw: Partial<Record<string, PrintedField>> } | null;
  quality: QualityAssessment;
  problems: SideProblem[];
  refusal: UploadRefusalReason | null;
  /** The document photo (DNI front portrait, passport photo) as a JPEG, for the face step. */
  face_crop: Buffer | null;
  /** 64-bit difference hash of the image (hex), for comparing front and front_angle when data is missing. */
  image_hash: string | null;
  timings: { barcode_ms: number; mrz_ms: number; printed_ms: number };
  ms: number;
}

export interface ReadSideOptions {
  side: Side;
  acceptedTypes: readonly DocumentType[];
  today: string;
  /**
   * Time for the barcode and MRZ searches of this side (ms); the printed fields get up to
   * `printedBudgetMs` more once an anchor is found. Attempts already running are finished, so a side
   * may overrun by one attempt (an OCR pass is 0.1–0.4 s).
   */
  budgetMs?: number;
  printedBudgetMs?: number;
}

export const DEFAULT_SIDE_BUDGET_MS = 1500;
export const DEFAULT_PRINTED_BUDGET_MS = 800;

// Share of the side's budget for the barcode's first stage and for it plus the MRZ search; the
// barcode's regions and ladder of tilts get what is left.
const FIRST_BARCODE_SHARE = 0.2;
const MRZ_SHARE = 0.6;

// Below this OCR confidence in any letter of an MRZ's names, they are withheld. Measured on the corpus
// (bench/documents, seed 42): names read right had their weakest letter at 76–92, names read wrong (a
// blurred M read as H, a letter lost to perspective) at 70–73.
const MIN_NAME_CONFIDENCE = 75;

// A skew estimate smaller than this is within zxing's and tesseract's own tolerance.
const MIN_SKEW_DEGREES = 2;

/** A side on which nothing was read and nothing is wrong yet: the base of every reading built by hand. */
export function blankSideReading(side: Side): SideReading {
  return {
    side,
    detected_type: null,
    detected_face: null,
    barcode: null,
    barcode_fields: null,
    mrz: null,
    mrz_fields: null,
    printed: null,
    quality: {
      blur: null,
      glare: null,
      brightness: null,
      screen: { score: null, detected: false, judged: false, evidence: null },
      problems: [],
      assessed: false,
    },
    problems: [],
    refusal: null,
    face_crop: null,
    image_hash: null,
    timings: { barcode_ms: 0, mrz_ms: 0, printed_ms: 0 },
    ms: 0,
  };
}

function emptyReading(side: Side, started: number, refusal: UploadRefusalReason): SideReading {
  return { ...blankSideReading(side), problems: ['unreadable_image'], refusal, ms: Date.now() - started };
}

function mrzAngles(skew: number | null, axis: 'horizontal' | 'vertical', known: number | null): number[] {
  if (known !== null) return [known];
  // Each turn also covers the page upside down (the locator reads blocks in the top half turned 180°).
  // Lines that run closer to the vertical are a page on its side: its turns come first.
  const upright = axis === 'vertical' ? 90 : 0;
  const across = 90 - upright;
  const angles: number[] = [];
  const add = (turn: number) => {
    if (!angles.includes(turn)) angles.push(turn);
  };
  if (skew !== null) add(upright - skew);
  add(upright);
  // A page tilted by a couple of degrees slants its MRZ lines into each other at the locator's scale,
  // and the skew estimate misses it when the page's text is sparse: small turns are cheap to try (the
  // locator costs milliseconds when it finds nothing).
  for (const turn of [2, -2, 4, -4]) add(upright + turn);
  if (skew !== null) add(across - skew);
  add(across);
  return angles;
}

function faceOf(layout: DniBarcodeLayout | null, mrz: MrzReading | null, printedCount: number): SideFace | null {
  if (layout === 'new_2012') return 'front';
  // The 2009 card's PDF417 is on its back; the reported 2026 card carries its QR on the back.
  if (layout === 'old_2009' || layout === 'reported_2026') return 'back';
  if (mrz !== null) {
    const type = documentTypeOfMrz(mrz.data);
    if (type === 'passport') return 'data_page';
    // A TD1 MRZ is on the 2009 front and on the 2012+ back: its printed fields tell them apart. When they
    // cannot be read, the face stays unknown rather than be guessed (a wrong guess rejects a good card).
    if (type === 'dni' && printedCount >= 2) return 'front';
  }
  return null;
}

/** Reads one side. Never throws for a bad image: an upload that cannot be prepared is a typed problem. */
export async function readSide(image: PreparedImage | Buffer, options: ReadSideOptions): Promise<SideReading> {
  const started = Date.now();
  const prepared = Buffer.isBuffer(image) ? await prepareUpload(image) : image;
  if (!prepared.ok) return emptyReading(options.side, started, prepared.reason);

  const budget = options.budgetMs ?? DEFAULT_SIDE_BUDGET_MS;
  const raster: GreyRaster = await decodeGrey(prepared.jpeg);
  const skewEstimate = estimatePageSkew(await decodeGrey(prepared.jpeg, 800));
  const skew = Math.abs(skewEstimate.degrees) >= MIN_SKEW_DEGREES ? skewEstimate.degrees : null;
  const quality = await assessQuality(prepared);
  // The budget covers the searches, not decoding the upload.
  const searchStarted = Date.now();

  // 1. The barcode, quickly: the whole photo as taken and deskewed. A symbol whose payload is no DNI's
  //    and no PDF417 (a licence's QR, a URL beside the PDF417 with the data) does not end the search.
  const accept = ({ format, text }: { format: string; text: string }) =>
    format === 'PDF417' || parseDniBarcode(text, { today: options.today }).ok;
  let barcodeMs = 0;
  const first = await searchBarcode(raster, {
    steps: barcodePlan('first', skew),
    deadline: searchStarted + budget * FIRST_BARCODE_SHARE,
    accept,
  });
  barcodeMs += first.ms;
  let barcode = first.found;
  let refused = first.refused;

  // 2. The MRZ, at the barcode's orientation when there is one. It goes before the barcode's slower
  //    stages: a side with a valid MRZ carries no PDF417 (passport pages, the 2009 front, the 2012+
  //    back), and the 2026 back's QR is read from the whole photo at any turn.
  const oriented = barcode ?? refused;
  const knownAngle = oriented === null ? null : -quadAngle(oriented.quad);
  const mrzSearch = await searchMrz(raster, {
    angles: mrzAngles(skew, skewEstimate.axis, knownAngle),
    deadline: barcode === null ? searchStarted + budget * MRZ_SHARE : searchStarted + budget,
  });
  const mrz = mrzSearch.found;
  const mrzType = mrz === null ? null : documentTypeOfMrz(mrz.data);

  // 3. The barcode again: in the likely regions, turned as the MRZ was read, then along the ladder of
  //    tilts, with what is left.
  if (barcode === null && mrz?.valid !== true) {
    const steps: BarcodeStep[] = barcodePlan('regions', skew);
    if (mrz !== null) steps.push({ angle: mrz.angle, regions: ALL_REGIONS });
    steps.push(...barcodePlan('ladder', skew));
    const rest = await searchBarcode(raster, {
      steps,
      deadline: searchStarted + budget,
      accept,
      formats: refused === null ? undefined : (['PDF417', 'QRCode'] as const).filter((format) => format !== refused?.format),
    });
    barcodeMs += rest.ms;
    barcode = rest.found;
    refused ??= rest.refused;
  }
  barcode ??= refused;

  const parsed = barcode === null ? null : parseDniBarcode(barcode.text, { today: options.today });
  const barcodeFields = parsed?.ok === true ? parsed.fields : null;
  const layout = parsed?.ok === true ? parsed.layout : null;
  // The names are the one part of an MRZ no check digit covers; read uncertainly, they are not given
  // (the document then lacks them) rather than given wrong with every check passing.
  const namesWithheld = mrz !== null && (mrz.name_confidence < MIN_NAME_CONFIDENCE || (mrz.valid && !mrz.names_corroborated));
  const mrzRead = mrz === null ? null : mrzToDocumentFields(mrz.data, { today: options.today });
  const mrzFields = mrzRead !== null && namesWithheld ? { ...mrzRead, surname: null, given_names: null } : mrzRead;

  // 4. Printed fields and the photo, where an anchor gives the card's geometry.
  const printedStarted = Date.now();
  let printed: SideReading['printed'] = null;
  let faceCrop: Buffer | null = null;
  const printedDeadline = printedStarted + (options.printedBudgetMs ?? DEFAULT_PRINTED_BUDGET_MS);
  if (barcode !== null && layout === 'new_2012') {
    const frame = await cardFrame(raster, barcode.quad, 'width');
    const reading = await readPrintedFields(frame, 'dni_2012_front', printedDeadline);
    printed = { layout: reading.layout, fields: reading.fields, raw: reading.raw };
    faceCrop = await portraitCrop(prepared.jpeg, frame, 'dni_2012_front');
  } else if (mrz !== null && mrzType === 'dni' && mrz.data.format === 'TD1') {
    const frame = await cardFrame(raster, mrz.quad, 'height');
    const reading = await readPrintedFields(frame, 'dni_2009_front', printedDeadline);
    printed = { layout: reading.layout, fields: reading.fields, raw: reading.raw };
    if (Object.keys(reading.fields).length >= 2) faceCrop = await portraitCrop(prepared.jpeg, frame, 'dni_2009_front');
  } else if (mrz !== null && mrzType === 'passport') {
    faceCrop = await portraitCrop(prepared.jpeg, await cardFrame(raster, mrz.quad, 'width'), 'passport_td3');
  }
  const printedMs = Date.now() - printedStarted;

  const printedCount = printed === null ? 0 : Object.keys(printed.fields).length;
  const detectedType: SideReading['detected_type'] = barcodeFields !== null ? 'dni' : mrzType;
  const detectedFace = faceOf(layout, mrz, printedCount);

  const problems: SideProblem[] = [...quality.problems];
  if (barcode === null) problems.push('barcode_not_found');
  if (mrz === null) problems.push('mrz_not_found');
  if (barcode === null && mrz === null && printedCount === 0) problems.push('no_document');
  const expectedFace: SideFace | null = options.side === 'back' ? 'back' : 'front';
  if (detectedFace !== null && detectedFace !== 'data_page' && detectedFace !== expectedFace) problems.push('other_side');
  if (detectedType !== null && (detectedType === 'unsupported' || !options.acceptedTypes.includes(detectedType))) {
    problems.push('wrong_type');
  }

  return {
    side: options.side,
    detected_type: detectedType,
    detected_face: detectedFace,
    barcode:
      barcode === null
        ? null
        : {
            format: barcode.format,
            text: barcode.text,
            bytes_base64: barcode.bytes_base64,
            angle: barcode.angle,
            region: barcode.region,
            scale: barcode.scale,
            symbol_orientation: barcode.symbol_orientation,
            sequence: barcode.sequence,
            layout,
            parse_failure: parsed === null || parsed.ok ? null : `${parsed.failure}: ${parsed.detail}`,
          },
    barcode_fields: barcodeFields,
    mrz:
      mrz === null
        ? null
        : {
            lines: mrz.lines,
            format: mrz.data.format,
            valid: mrz.valid,
            check_digits: mrz.data.check_digits,
            problems: mrz.data.problems,
            names_truncated: mrz.data.names_truncated,
            repaired_characters: mrz.repaired_characters,
            angle: mrz.angle,
            name_confidence: mrz.name_confidence,
            names_corroborated: mrz.names_corroborated,
            names_withheld: namesWithheld,
          },
    mrz_fields: mrzFields,
    printed,
    quality,
    problems,
    refusal: null,
    face_crop: faceCrop,
    image_hash: await perceptualHash(prepared.jpeg),
    timings: { barcode_ms: barcodeMs, mrz_ms: mrzSearch.ms, printed_ms: printedMs },
    ms: Date.now() - started,
  };
}
