import { quadAngle, rotatePoint, rotatedSize, type Point, type Quad } from '../image/geometry';
import sharp from 'sharp';
import { greyVariant, pngOfRaster, rotateRaster, toPixels, type GreyRaster, type RelativeRegion } from '../image/raster';
import type { DocumentFields, Sex } from '../model';
import { normaliseDate } from '../parsers/dates';
import { OcrTimeoutError, recognise, type OcrResult } from './ocr';
import { percentiles } from './ink';
import type { SafetyClock } from './work-budget';

/**
 * The printed fields of a DNI front (and a DNI back's CUIL, a passport page's number), read by OCR in
 * small crops placed relative to something already found on the card: the 2012+ front's PDF417, the
 * 2009 back's PDF417 or a TD1 or TD3 MRZ. Each gives the card's position, scale and orientation, so
 * each field's value is cropped where the card design puts it and read as a single line (a passport's
 * number, whose place varies a little between states, as a block with its label) with a whitelist that
 * fits the field. A whole-card OCR pass was measured at 4–11 s with poor results on the guilloche
 * background; these crops take 40–100 ms each.
 *
 * The layouts are the RENAPER and ICAO specimens' (docs/design.md "Reference data"), measured once in
 * units of the anchor's width (barcode, TD3 MRZ) or height (TD1 MRZ) from its top-left corner, with
 * generous margins; the backs' on the corpus. What OCR achieves: upper-case
 * Latin letters and digits on the specimens; accents are lost (names are compared without them), and a
 * field read with low confidence is dropped rather than reported, so a cross-check only compares what
 * was read well.
 */
export type PrintedLayout = 'dni_2012_front' | 'dni_2009_front' | 'dni_2012_back' | 'dni_2009_back' | 'passport_td3';

export type FieldKind = 'name' | 'number' | 'sex' | 'date' | 'tramite' | 'cuil' | 'passport_number';

interface FieldBox {
  field: keyof Pick<
    DocumentFields,
    'surname' | 'given_names' | 'number' | 'sex' | 'birth_date' | 'expiry_date' | 'issue_date' | 'tramite' | 'cuil'
  >;
  kind: FieldKind;
  /** In layout units from the anchor's top-left corner, x to the right and y downwards (card upright). */
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  /**
   * A box that holds a field's label and its value (a passport's visual zone, whose rows differ between
   * states) is read as a block, scaled for this many lines of text, and its value picked among the words.
   */
  lines?: number;
}

/** Where the card design puts things, relative to the anchor. */
interface Layout {
  fields: FieldBox[];
  /** Where the document photo is (fronts only). */
  portrait?: { x0: number; x1: number; y0: number; y1: number };
}

// Measured on the 2012 specimen front (PDF417 274 px wide at 527,451 on a 900×560 image).
const DNI_2012_FRONT: Layout = {
  fields: [
    { field: 'surname', kind: 'name', x0: -0.68, x1: 0.25, y0: -1.12, y1: -0.99 },
    { field: 'given_names', kind: 'name', x0: -0.68, x1: 0.25, y0: -0.86, y1: -0.73 },
    { field: 'sex', kind: 'sex', x0: -0.68, x1: -0.5, y0: -0.61, y1: -0.51 },
    { field: 'birth_date', kind: 'date', x0: -0.68, x1: -0.02, y0: -0.44, y1: -0.33 },
    { field: 'expiry_date', kind: 'date', x0: -0.68, x1: -0.02, y0: -0.1, y1: 0.01 },
    { field: 'number', kind: 'number', x0: -1.56, x1: -0.72, y0: 0.11, y1: 0.27 },
  ],
  portrait: { x0: -1.6, x1: -0.64, y0: -1.12, y1: 0.0 },
};

// Measured on the 2009 specimen in units of its MRZ's height (98 px at 91,366 on a 768×517 image):
// the zone's width as OCR boxes it can include the marks at the card's right edge, its height cannot.
const DNI_2009_FRONT: Layout = {
  fields: [
    { field: 'surname', kind: 'name', x0: -0.34, x1: 2.4, y0: -2.52, y1: -2.22 },
    { field: 'given_names', kind: 'name', x0: -0.34, x1: 2.4, y0: -2.09, y1: -1.8 },
    { field: 'number', kind: 'number', x0: -0.34, x1: 1.2, y0: -1.67, y1: -1.41 },
    { field: 'sex', kind: 'sex', x0: 2.5, x1: 3.25, y0: -1.84, y1: -1.57 },
    { field: 'expiry_date', kind: 'date', x0: -0.34, x1: 1.2, y0: -0.41, y1: -0.14 },
  ],
  portrait: { x0: 3.4, x1: 5.7, y0: -3.15, y1: -0.3 },
};

// The backs print the CUIL, which the 2009 card's barcode and the 2012+ card's 8-field barcode do not
// carry: without it the CUIL checks cannot run on those cards. No back specimen is in the reference set;
// measured on the corpus's backs (packages/corpus/src/render/layouts.ts, modelled on photographs of
// issued cards): the bold `CUIL: NN-NNNNNNNN-N` line above the address block's end. 2009 back in units
// of its PDF417's width (560 px at 40,300 on an 856×540 card: the line at 40–255, 152–167);
// 2012+ back in units of its TD1 MRZ's height (about 145 px at 47,361: the line at 40–255, 157–172).
const DNI_2009_BACK: Layout = {
  fields: [{ field: 'cuil', kind: 'cuil', x0: -0.04, x1: 0.5, y0: -0.29, y1: -0.215 }],
};
const DNI_2012_BACK: Layout = {
  fields: [{ field: 'cuil', kind: 'cuil', x0: -0.15, x1: 1.75, y0: -1.5, y1: -1.22 }],
};

// A TD3 data page in units of its MRZ's width: ICAO 9303 part 4 puts the document number at the top
// right of the visual zone, under its label. Measured on the ICAO specimen (the reference
// set of docs/design.md, the value at 0.79–0.93 × −0.47…−0.44) and on the corpus's pages (0.68–0.81 ×
// −0.54…−0.52); the box takes both with their labels, and stops under the title and above the next row.
// The photo is above the MRZ's left third (the ICAO specimen).
const PASSPORT_TD3: Layout = {
  fields: [{ field: 'number', kind: 'passport_number', x0: 0.6, x1: 1.02, y0: -0.585, y1: -0.415, lines: 4 }],
  portrait: { x0: -0.02, x1: 0.36, y0: -0.5, y1: -0.03 },
};

const LAYOUTS: Record<PrintedLayout, Layout> = {
  dni_2012_front: DNI_2012_FRONT,
  dni_2009_front: DNI_2009_FRONT,
  dni_2012_back: DNI_2012_BACK,
  dni_2009_back: DNI_2009_BACK,
  passport_td3: PASSPORT_TD3,
};

const WHITELISTS: Record<FieldKind, string> = {
  name: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ ',
  number: '0123456789.',
  sex: 'MFX',
  date: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/ ',
  tramite: '0123456789',
  // The label's letters are allowed so that they are not read as digits.
  cuil: '0123456789-CUIL: ',
  passport_number: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ',
};

/** Below this OCR confidence a printed value is not reported: a misread must not look like a mismatch. */
export const PRINTED_MIN_CONFIDENCE = 75;

export interface PrintedField {
  text: string;
  confidence: number;
}

export interface PrintedReading {
  layout: PrintedLayout;
  /** The fields read with enough confidence, as the domain model writes them. */
  fields: Partial<DocumentFields>;
  /** Every crop's raw text and confidence, kept or not, for support ("why was this rejected?"). */
  raw: Partial<Record<FieldBox['field'], PrintedField>>;
  /** OCR passes made. */
  passes: number;
  ms: number;
}

/**
 * The card frame: the image turned so the anchor is upright, the anchor's top-left corner in it and the
 * unit of the layout (the anchor's width for a barcode, its height for an MRZ).
 */
export interface CardFrame {
  turned: GreyRaster;
  angle: number;
  origin: Point;
  unit: number;
}

export async function cardFrame(raster: GreyRaster, anchor: Quad, unitEdge: 'width' | 'height' = 'width'): Promise<CardFrame> {
  const angle = -quadAngle(anchor);
  const turned = await rotateRaster(raster, angle);
  const size = rotatedSize(raster, angle);
  // libvips may round the canvas differently by a pixel; the turned image's own size is authoritative.
  const target = { width: turned.width || size.width, height: turned.height || size.height };
  const topLeft = rotatePoint(anchor.topLeft, angle, raster, target);
  const topRight = rotatePoint(anchor.topRight, angle, raster, target);
  const bottomLeft = rotatePoint(anchor.bottomLeft, angle, raster, target);
  const unit =
    unitEdge === 'width'
      ? Math.hypot(topRight.x - topLeft.x, topRight.y - topLeft.y)
      : Math.hypot(bottomLeft.x - topLeft.x, bottomLeft.y - topLeft.y);
  return { turned, angle, origin: topLeft, unit };
}

function relativeRegion(frame: CardFrame, box: { x0: number; x1: number; y0: number; y1: number }): RelativeRegion | null {
  const { turned, origin, unit } = frame;
  const left = Math.max(0, origin.x + box.x0 * unit);
  const right = Math.min(turned.width, origin.x + box.x1 * unit);
  const top = Math.max(0, origin.y + box.y0 * unit);
  const bottom = Math.min(turned.height, origin.y + box.y1 * unit);
  if (right - left < 4 || bottom - top < 4) return null;
  return {
    left: left / turned.width,
    top: top / turned.height,
    width: (right - left) / turned.width,
    height: (bottom - top) / turned.height,
  };
}

function parseName(text: string): string | null {
  const name = text
    .replace(/[^A-Z ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const words = name.split(' ');
  // Letters OCR split apart ("G R I A") are a misread, not a name.
  if (words.length === 0 || words.some((word) => word.length < 2)) return null;
  return name;
}

/**
 * The printed number is grouped as the card prints it (`12.244.617`, `9.466.949`). A read whose groups
 * break that shape lost or gained a digit (a cut crop gives `31.075.19`): it is not reported, because a
 * misread must not look like a different number.
 */
export function parsePrintedNumber(text: string): string | null {
  const groups = text
    .trim()
    .split(/[^\d]+/)
    .filter((group) => group.length > 0);
  const digits = groups.join('');
  if (!/^\d{7,8}$/.test(digits)) return null;
  if (groups.length === 1) return digits;
  const shaped = groups.length === 3 && /^\d{1,2}$/.test(groups[0]!) && groups[1]!.length === 3 && groups[2]!.length === 3;
  return shaped ? digits : null;
}

/**
 * The printed CUIL (`CUIL: 27-94097889-9`) as `NN-NNNNNNNN-N`: two digits, eight (a number under ten
 * million padded), one, with the card's hyphens; anything else is a misread and not reported.
 */
export function parsePrintedCuil(text: string): string | null {
  const match = /(?:^|[^\d])(\d{2})-(\d{8})-(\d)\s*$/.exec(text.replace(/\s*-\s*/g, '-').trim());
  return match === null ? null : `${match[1]}-${match[2]}-${match[3]}`;
}

function parseSex(text: string): Sex | null {
  const match = /([MFX])\s*$/.exec(text.trim());
  return match === null ? null : (match[1] as Sex);
}

const PRINTED_YEARS = { first: 1900, last: 2099 } as const;

/**
 * A printed date, "01 NOV/ NOV 1969" (Spanish / English month), as ISO; OCR may drop the spaces around the
 * slash. The day stands after no letter or digit: in "23 A601 AUG 1974" (AGO/ misread) no date is read,
 * where "01 AUG 1974" was taken from inside the misread month and rejected a genuine card (seed 99).
 */
export function parsePrintedDate(text: string): string | null {
  const match = /(?<![A-Z0-9])(\d{1,2})\s*([A-Z]{3})\s*\/?\s*([A-Z]{3})?\s*(\d{4})/.exec(text.toUpperCase());
  if (match === null) return null;
  const [, day = '', month = '', english, year = ''] = match;
  // A card's dates fall in these years; another is a misread digit (seed 99: `9015` for 2015).
  if (Number(year) < PRINTED_YEARS.first || Number(year) > PRINTED_YEARS.last) return null;
  return normaliseDate(`${day} ${month}${english === undefined ? '' : `/${english}`} ${year}`);
}

function parseField(kind: FieldKind, text: string): string | null {
  switch (kind) {
    case 'name':
      return parseName(text);
    case 'number':
      return parsePrintedNumber(text);
    case 'sex':
      return parseSex(text);
    case 'date':
      return parsePrintedDate(text);
    case 'tramite': {
      const digits = text.replace(/\D/g, '');
      return /^\d{11}$/.test(digits) ? digits : null;
    }
    case 'cuil':
      return parsePrintedCuil(text);
    case 'passport_number':
      return parsePassportNumber(text);
  }
}

/**
 * A passport number as ICAO 9303 allows it (up to 9 letters and digits) and as states print it: 6 to 9
 * characters with at least three digits, which the labels around it ("PASSPORT NO", "TYPE") never have.
 */
export function parsePassportNumber(text: string): string | null {
  const word = text.trim();
  return /^[A-Z0-9]{6,9}$/.test(word) && (word.match(/\d/g)?.length ?? 0) >= 3 ? word : null;
}

/**
 * A passport's printed number judged against its MRZ's (whose check digit held). OCR confuses letters
 * with digits and with each other in both directions (the ICAO specimen's `L898902C3` reads
 * `L89890203`), while an altered print shows another digit in a digit's place: so the print is taken to
 * say the MRZ's number unless, at the same length, a digit stands where the MRZ has another digit; then
 * it is given as read and the cross-check fails. A read of another length is dropped (a character lost
 * or gained by OCR, not by the print).
 */
export function printedNumberAgainst(fields: Partial<DocumentFields>, machineNumber: string): Partial<DocumentFields> {
  const printed = fields.number;
  if (printed === undefined || printed === null) return fields;
  const { number: _dropped, ...others } = fields;
  if (printed.length !== machineNumber.length) return others;
  const isDigit = (character: string | undefined) => character !== undefined && /\d/.test(character);
  const otherDigit = [...printed].some(
    (character, index) => character !== machineNumber[index] && isDigit(character) && isDigit(machineNumber[index]),
  );
  return { ...fields, number: otherDigit ? printed : machineNumber };
}

/**
 * A block's value: among the runs of one to three neighbouring words on a line that parse, one that
 * `agrees` with what the document says elsewhere, then the longest, then the most confident. Words are
 * judged one by one (the labels around the value read poorly, and the block's confidence would be
 * theirs) and joined because the engine splits a bold number at a wide gap (`AAA3 72172`); a run is as
 * confident as its least confident word. An agreeing run wins whatever its confidence: another
 * number-shaped word in the block (a state's second number) must not pass for an altered print while
 * the right one is there, read less well.
 */
export function valueOfBlock(
  kind: FieldKind,
  ocr: OcrResult,
  agrees: (value: string) => boolean = () => false,
): PrintedField & { value: string | null } {
  // With no run that parses, the block's text is kept for support ("why was this not read?").
  let best: PrintedField & { value: string | null } = {
    text: ocr.text.replace(/\s+/g, ' ').trim(),
    confidence: ocr.confidence,
    value: null,
  };
  // Agreement, then length, then confidence: the first of these that differs decides.
  const rankOf = (value: string, confidence: number) => [agrees(value) ? 1 : 0, value.length, confidence];
  let bestRank = [-1, -1, -1];
  for (const { words } of ocr.lines) {
    for (let first = 0; first < words.length; first += 1) {
      for (let last = first; last < Math.min(words.length, first + 3); last += 1) {
        const run = words.slice(first, last + 1);
        const value = parseField(kind, run.map((word) => word.text).join(''));
        if (value === null) continue;
        const confidence = Math.min(...run.map((word) => word.confidence));
        const rank = rankOf(value, confidence);
        const decisive = rank.findIndex((key, index) => key !== bestRank[index]);
        if (decisive === -1 || rank[decisive]! < bestRank[decisive]!) continue;
        best = { text: run.map((word) => word.text).join(' '), confidence, value };
        bestRank = rank;
      }
    }
  }
  return best;
}

/** A field's box in layout units (`FieldBox` without what it holds). */
export type LayoutBox = Pick<FieldBox, 'x0' | 'x1' | 'y0' | 'y1'>;

// How far above and below its box a value is looked for, as a share of the box's height; less than half
// the spacing of two value rows on every layout (2009 front: rows 0.37 MRZ heights apart, boxes 0.3).
const ROW_SEARCH_SLACK = 0.7;
// A label's letters stand at most about 0.7 of its value's (specimens 10 against 15-17 px, the corpus's
// 2009 front 7.9 against 14.3 units); a band this much shorter than the tallest in the window is a label.
const VALUE_ROW_SHARE = 0.72;
// Rows a value's accents (Ñ's tilde, an acute) stand apart from its letters by, as a share of the window.
const ACCENT_GAP_SHARE = 0.05;

/**
 * The box moved up or down onto the row of text its value is printed on, when the window around it shows
 * one: the layouts were measured on one specimen each, and a card printed or modelled a little
 * differently (the corpus's 2009 front, whose values stand 0.05-0.15 MRZ heights above the specimen's)
 * puts the value across the box's edge, where OCR reads half a line or the label next to it (seed 99: 2
 * of the 33 2009 fronts whose zone was read kept one field each; every altered print there went
 * unseen). The window is the box's width and its height plus `ROW_SEARCH_SLACK` above and below; ink is
 * what is darker than the paper by 45% of the window's contrast; a row of text is a run of rows with
 * ink, a value's row one at least `VALUE_ROW_SHARE` as tall as the tallest, and the one nearest the box's
 * centre is taken, with a quarter of its height above and below. With no such row (a blank, glared or
 * blurred window, or a blob taller than the box) the box is kept as it is.
 */
export function snapToTextRow(raster: GreyRaster, origin: Point, unit: number, box: LayoutBox): LayoutBox {
  const slack = (box.y1 - box.y0) * ROW_SEARCH_SLACK;
  const left = Math.max(0, Math.round(origin.x + box.x0 * unit));
  const right = Math.min(raster.width, Math.round(origin.x + box.x1 * unit));
  const top = Math.max(0, Math.round(origin.y + (box.y0 - slack) * unit));
  const bottom = Math.min(raster.height, Math.round(origin.y + (box.y1 + slack) * unit));
  const width = right - left;
  const height = bottom - top;
  if (width < 8 || height < 8) return box;
  const window = Buffer.alloc(width * height);
  for (let y = 0; y < height; y += 1)
    raster.data.copy(window, y * width, (top + y) * raster.width + left, (top + y) * raster.width + right);
  const { low, high } = percentiles(window, 0.02, 0.9);
  if (high - low < 40) return box;
  const inkBelow = low + 0.45 * (high - low);
  const minInk = Math.max(2, Math.round(width * 0.01));
  const inked: boolean[] = [];
  for (let y = 0; y < height; y += 1) {
    let ink = 0;
    for (let x = 0; x < width; x += 1) if ((window[y * width + x] ?? 255) < inkBelow) ink += 1;
    inked.push(ink >= minInk);
  }
  const bands: { start: number; end: number }[] = [];
  const maxGap = Math.max(1, Math.round(height * ACCENT_GAP_SHARE));
  for (let y = 0; y < height; y += 1) {
    if (!inked[y]) continue;
    const last = bands[bands.length - 1];
    if (last !== undefined && y - last.end <= maxGap + 1) last.end = y;
    else bands.push({ start: y, end: y });
  }
  const tallest = Math.max(0, ...bands.map((band) => band.end - band.start + 1));
  const boxHeight = (box.y1 - box.y0) * unit;
  if (tallest < 4 || tallest > boxHeight * 1.2) return box;
  const centre = origin.y + ((box.y0 + box.y1) / 2) * unit - top;
  let best: { start: number; end: number } | null = null;
  for (const band of bands) {
    if (band.end - band.start + 1 < tallest * VALUE_ROW_SHARE) continue;
    const distance = Math.abs((band.start + band.end) / 2 - centre);
    if (best === null || distance < Math.abs((best.start + best.end) / 2 - centre)) best = band;
  }
  if (best === null) return box;
  const margin = (best.end - best.start + 1) / 4;
  return {
    x0: box.x0,
    x1: box.x1,
    y0: (top + best.start - margin - origin.y) / unit,
    y1: (top + best.end + 1 + margin - origin.y) / unit,
  };
}

// Crops are scaled so a line of text stands about this tall for OCR.
const FIELD_HEIGHT_PX = 72;
// Printed values are black; the guilloche, seal and specimen stamp are lighter and drop out below this.
const INK_THRESHOLD = 100;

/**
 * A crop darker than this share at `INK_THRESHOLD` is a dim photo whose paper fell under the threshold
 * with its ink: it is stretched first, then thresholded (`stretchedThenThresholded`). A block crop still
 * darker is not read: nothing in it can be, and the engine spends 1.5–10 s on the noise (the corpus's
 * low-light passports). Measured on the crop as the engine is given it: over 200 passports (corpus seed
 * 5001) the zones read measured 0.09 at most and no other crop fell between 0.11 and 0.71.
 */
const MAX_BLOCK_INK_SHARE = 0.5;

// A dim crop is smoothed (in output pixels: its sensor noise, stretched, would be read as specks of ink)
// and stretched before it is thresholded. Chosen on the 32 low-light fronts of seeds 99, 42 and 7
// (values read right / wrong over surnames, given names, numbers, sex, birth and expiry dates): before,
// 1 / 0; threshold 100 and blur 2 px, 46 / 0; threshold 70, 50 / 1 (`MOUNA`); 128, 39 / 0; blur 3, 38 / 1.
const STRETCHED_INK_THRESHOLD = 100;
const STRETCHED_BLUR_PX = 2;

/** A crop of a dim photo, stretched to the full range first, so that the threshold falls between its ink and its paper. */
async function stretchedThenThresholded(raster: GreyRaster, region: RelativeRegion, scale: number): Promise<GreyRaster> {
  const stretched = await greyVariant(raster, { region, scale, normalise: true, blur: STRETCHED_BLUR_PX });
  return greyVariant(stretched, { threshold: STRETCHED_INK_THRESHOLD });
}

function inkShare({ data }: GreyRaster): number {
  let ink = 0;
  for (const value of data) if (value < 128) ink += 1;
  return data.length === 0 ? 0 : ink / data.length;
}

export type PrintedFieldName = FieldBox['field'];

export interface PrintedReadOptions {
  /** Only these fields of the layout (each pass costs 40–100 ms); every field otherwise. */
  only?: readonly PrintedFieldName[];
  /** What the document says of a field elsewhere, for a block's choice among its words (`valueOfBlock`). */
  agrees?: Partial<Record<PrintedFieldName, (value: string) => boolean>>;
  /**
   * Stop when none of the first this-many fields gave a value: the crops then fall on another layout
   * (a 2012+ back's address and CUIL where the 2009 front has its names), and the rest would too.
   */
  confirmWithin?: number;
}

/**
 * One OCR pass per field of the layout (at most six): bounded by the layout itself, so no budget; the
 * side's safety clock alone can end it early.
 */
export async function readPrintedFields(
  frame: CardFrame,
  layout: PrintedLayout,
  clock: SafetyClock | null = null,
  options: PrintedReadOptions = {},
): Promise<PrintedReading> {
  const started = Date.now();
  const fields: Partial<DocumentFields> = {};
  const raw: PrintedReading['raw'] = {};
  let passes = 0;
  const boxes = LAYOUTS[layout].fields.filter((box) => options.only === undefined || options.only.includes(box.field));
  /** One OCR pass over `placed` for `box`'s field; 'timeout' when the engine gave up, null with no crop. */
  const readPlaced = async (
    box: FieldBox,
    placed: LayoutBox,
  ): Promise<{ raw: PrintedField; value: string | null } | 'timeout' | null> => {
    const region = relativeRegion(frame, placed);
    if (region === null) return null;
    const scale = (FIELD_HEIGHT_PX * (box.lines ?? 1)) / (region.height * frame.turned.height);
    let crop = await greyVariant(frame.turned, { region, scale, normalise: true, threshold: INK_THRESHOLD });
    if (inkShare(crop) > MAX_BLOCK_INK_SHARE) crop = await stretchedThenThresholded(frame.turned, region, scale);
    if (box.lines !== undefined && inkShare(crop) > MAX_BLOCK_INK_SHARE) return null;
    const png = await pngOfRaster(crop);
    passes += 1;
    const mode = box.lines === undefined ? 'line' : 'block';
    const ocr = await recognise(png, { whitelist: WHITELISTS[box.kind], mode }).catch((error: unknown) => {
      if (error instanceof OcrTimeoutError) return null;
      throw error;
    });
    if (ocr === null) return 'timeout';
    const read =
      mode === 'block'
        ? valueOfBlock(box.kind, ocr, options.agrees?.[box.field])
        : { text: ocr.text.replace(/\s+/g, ' ').trim(), confidence: ocr.confidence, value: undefined };
    const kept =
      read.confidence < PRINTED_MIN_CONFIDENCE ? null : read.value === undefined ? parseField(box.kind, read.text) : read.value;
    return { raw: { text: read.text, confidence: Math.round(read.confidence) }, value: kept };
  };

  fieldLoop: for (const [index, box] of boxes.entries()) {
    if (clock?.expired === true) break;
    if (options.confirmWithin !== undefined && index >= options.confirmWithin && Object.keys(fields).length === 0) break;
    // A line is read on the row of text nearest its box first and, when that keeps nothing, in the box as
    // measured: on the corpus's fronts the row reads more (seed 99, 60 DNI fronts: surnames 0 -> 18,
    // numbers 24 -> 33), on the 2012 specimen the box as measured reads its number and the row does not.
    const snapped = box.lines === undefined ? snapToTextRow(frame.turned, frame.origin, frame.unit, box) : box;
    const placements = snapped.y0 === box.y0 && snapped.y1 === box.y1 ? [box] : [snapped, box];
    for (const placed of placements) {
      const outcome = await readPlaced(box, placed);
      // A crop the engine could not finish is noise; the fields after it would fare no better.
      if (outcome === 'timeout') break fieldLoop;
      if (outcome === null) continue;
      raw[box.field] = outcome.raw;
      if (outcome.value !== null) {
        (fields as Record<string, string>)[box.field] = outcome.value;
        break;
      }
    }
  }
  return { layout, fields, raw, passes, ms: Date.now() - started };
}

/**
 * The document photo's region, in colour, as a JPEG for the face step; null when the region falls off
 * the image. `image` is the encoded image the frame's raster was decoded from (same pixel size).
 */
export async function portraitCrop(image: Buffer, frame: CardFrame, layout: PrintedLayout): Promise<Buffer | null> {
  const box = LAYOUTS[layout].portrait;
  if (box === undefined) return null;
  const region = relativeRegion(frame, box);
  if (region === null) return null;
  const pixels = toPixels(region, frame.turned.width, frame.turned.height);
  if (pixels.width < 32 || pixels.height < 32) return null;
  return sharp(image)
    .rotate(frame.angle, { background: { r: 255, g: 255, b: 255 } })
    .extract(pixels)
    .jpeg({ quality: 90 })
    .toBuffer();
}
