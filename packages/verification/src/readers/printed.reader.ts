import {
  ACCENT_GAP_SHARE,
  DARKEST_LOOK,
  DEEPEST_LOOK,
  FIELD_HEIGHT_PX,
  FINE_LOOK,
  INK_THRESHOLD,
  LARGE_LOOK,
  MAX_BLOCK_INK_SHARE,
  ROW_SEARCH_SLACK,
  STRETCHED_BLUR_PX,
  STRETCHED_INK_THRESHOLD,
  VALUE_INK_MAX,
  VALUE_ROW_SHARE,
  VALUE_RUN_PX,
  WIDEST_2012_FRONT_LINE,
  type ValueLook,
} from '../calibration/printed';
import { quadAngle, rotatePoint, rotatedSize, type Point, type Quad } from '../image/geometry';
import sharp from 'sharp';
import {
  greyVariant,
  pngOfRaster,
  rotateRaster,
  toPixels,
  type GreyRaster,
  type PixelRegion,
  type RelativeRegion,
} from '../image/raster';
import type { DocumentFields, Sex } from '../model';
import { normaliseDate } from '../parsers/dates';
import { editDistance, nameKeys, normaliseCountry } from '../checks/field-normalisation';
import { fieldsAgree, type ComparableFields } from '../checks/compare-fields';
import { OcrTimeoutError, recognise, type OcrEngine, type OcrResult } from './ocr';
import { binarisedRun, labelDistance, readTextRuns, readsAsLabel, type LocatedText } from './printed-labels';
import type { TextFragment } from './text-fragments';
import { percentiles } from './ink';
import type { SafetyClock } from './work-budget';

/**
 * The printed fields of a DNI front (and a DNI back's CUIL, a passport page's visual zone), read by OCR
 * on a card already placed by something found on it: the 2012+ front's PDF417, the 2009 back's PDF417 or
 * a TD1 or TD3 MRZ. Each gives the card's position, scale and orientation (`CardFrame`).
 *
 * Where a layout has labels, each value is read where its label says it is: the runs of text of the
 * label area are found in the pixels and read in one stacked pass (`readTextRuns`), the runs that read
 * as a field's label ("Apellido / Surname", "NOMBRE/S:", "Date of expiry") name it, and its value is the
 * run under the label (or after it on its line, the 2009 card's `SEXO: F`). That pass is the value's first
 * read; a field that must be settled is read again in its own crop with a whitelist that fits it, then by
 * the other engine, until the reads settle it (`PrintedStatus`). A field whose label was not found is read
 * where the layout's specimen has it, relative to the anchor (`box`).
 *
 * The layouts are the RENAPER and ICAO specimens' (the reference set of docs/design.md), measured in units of
 * the anchor's width (barcode, TD3 MRZ) or height (TD1 MRZ) from its top-left corner; the corpus's cards
 * (packages/corpus) follow the same specimens. What OCR achieves: upper-case Latin letters and digits;
 * accents are lost (names are compared without them).
 */
export type PrintedLayout = 'dni_2012_front' | 'dni_2009_front' | 'dni_2012_back' | 'dni_2009_back' | 'passport_td3';

export type FieldKind = 'name' | 'number' | 'sex' | 'date' | 'tramite' | 'cuil' | 'passport_number' | 'nationality' | 'series';

export type PrintedFieldName = keyof Pick<
  DocumentFields,
  | 'surname'
  | 'given_names'
  | 'number'
  | 'sex'
  | 'birth_date'
  | 'expiry_date'
  | 'issue_date'
  | 'tramite'
  | 'cuil'
  | 'nationality'
  | 'series'
>;

/** A box in layout units from the anchor's top-left corner, x to the right and y downwards (card upright). */
export interface LayoutBox {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

interface FieldBox {
  field: PrintedFieldName;
  kind: FieldKind;
  /** Where the value stands on the layout's specimen: read there when its label is not found. */
  box?: LayoutBox;
  /**
   * A box that holds a field's label and its value (a passport's visual zone, whose rows differ between
   * states) is read as a block, scaled for this many lines of text, and its value picked among the words.
   */
  lines?: number;
  /**
   * The label's words (capitals, no accents), any one of which names the field, and where the label's
   * run starts on the layout's specimen (layout units), when the layout is fixed.
   */
  label?: { words: readonly string[]; at?: { x: number; y: number } };
  /** The value follows its label on its line (`SEXO: F`) rather than standing under it. */
  inline?: boolean;
  /**
   * The value the card implies, from what its machine-readable source says, for a field the source does
   * not carry (`expiryFifteenYearsAfterIssue`). One read saying exactly that settles the field (`read`);
   * reads saying anything else settle it as before, two alike: a card whose print says otherwise is
   * read as it prints.
   */
  implied?: (source: ComparableFields) => string | null;
}

/** Where the card design puts things, relative to the anchor. */
interface Layout {
  fields: FieldBox[];
  /** Where the document photo is (fronts only). */
  portrait?: LayoutBox;
  /**
   * Where the labels and their values are looked for, how tall their text stands, and how far from its
   * specimen place (`label.at`) a label may start (layout units): a row up or down, and further right,
   * where a label's start was lost (a seal over `Fecha de vencimiento` leaves `Date of expiry`).
   */
  labels?: {
    windows: readonly LayoutBox[];
    capitals: number;
    tallest: number;
    reach?: { rows: number; left: number; right: number };
    /** The anchor's own box (the barcode), whose ink joins no run: a value printed close above it stays a line. */
    anchor?: LayoutBox;
    /** The photo itself (tighter than `portrait`, which is cropped with a margin): no run of text there. */
    photo?: LayoutBox;
    /**
     * The photo's ink joins no run either, as the anchor's does not: the 2012 card's seal overlaps the
     * photo's corner, and in a dim photo the seal's rim and the photo's edge joined the issue and expiry
     * rows into runs starting at the photo's left edge, out of their labels' reach (seed 31: the dim
     * fronts' expiry label not found, its value read in the specimen's box).
     */
    photoJoinsNothing?: boolean;
    /**
     * No line of the layout's print is wider than this many times its height: a longer patch is the
     * card's edge or its shadow, which the label area's foot takes in when the card stands a little low.
     */
    widestAspect?: number;
  };
}

const CARD_VALIDITY_YEARS = 15;

/**
 * The 2012+ card's expiry as its issue date implies it: the card is valid fifteen years from its issue,
 * to the day (the RENAPER specimen prints issue 31 OCT 2013 and expiry 31 OCT 2002, the same day and
 * month; the corpus's cards, modelled on issued ones, print issue + 15 years). The barcode carries the
 * issue date, not the expiry. A card issued on 29 February implies nothing (which day it would print is
 * not known). Only evidence for a read: a card whose print says another date (a minor's card, a
 * specimen's) is read as it prints, from two reads alike.
 */
export function expiryFifteenYearsAfterIssue(source: ComparableFields): string | null {
  const issue = source.issue_date === null || source.issue_date === undefined ? null : normaliseDate(source.issue_date);
  if (issue === null || issue.slice(5) === '02-29') return null;
  return `${Number(issue.slice(0, 4)) + CARD_VALIDITY_YEARS}${issue.slice(4)}`;
}

// Measured on the 2012 specimen front (PDF417 274 px wide at 527,451 on a 900×560 image): the labels'
// capitals stand 10 px (0.036; the corpus's 0.028), the printed number 30 px; the data column runs from
// under the card's header (−1.25) to the card's foot (0.32), and the number with its label under the photo.
const DNI_2012_FRONT: Layout = {
  fields: [
    {
      field: 'surname',
      kind: 'name',
      label: { words: ['APELLIDO', 'SURNAME'], at: { x: -0.65, y: -1.17 } },
      box: { x0: -0.68, x1: 0.25, y0: -1.12, y1: -0.99 },
    },
    {
      field: 'given_names',
      kind: 'name',
      label: { words: ['NOMBRE'], at: { x: -0.65, y: -0.92 } },
      box: { x0: -0.68, x1: 0.25, y0: -0.86, y1: -0.73 },
    },
    {
      field: 'sex',
      kind: 'sex',
      label: { words: ['SEXO', 'SEX'], at: { x: -0.65, y: -0.65 } },
      box: { x0: -0.68, x1: -0.5, y0: -0.61, y1: -0.51 },
    },
    { field: 'nationality', kind: 'nationality', label: { words: ['NACIONALIDAD', 'NATIONALITY'], at: { x: -0.28, y: -0.65 } } },
    { field: 'series', kind: 'series', label: { words: ['EJEMPLAR'], at: { x: 0.44, y: -0.65 } } },
    {
      field: 'birth_date',
      kind: 'date',
      label: { words: ['NACIMIENTO', 'BIRTH'], at: { x: -0.65, y: -0.48 } },
      box: { x0: -0.68, x1: -0.02, y0: -0.44, y1: -0.33 },
    },
    { field: 'issue_date', kind: 'date', label: { words: ['EMISION', 'ISSUE'], at: { x: -0.65, y: -0.31 } } },
    {
      field: 'expiry_date',
      kind: 'date',
      label: { words: ['VENCIMIENTO', 'EXPIRY'], at: { x: -0.65, y: -0.14 } },
      box: { x0: -0.68, x1: -0.02, y0: -0.1, y1: 0.01 },
      implied: expiryFifteenYearsAfterIssue,
    },
    { field: 'tramite', kind: 'tramite', label: { words: ['TRAMITE', 'IDENT'], at: { x: -0.65, y: 0.03 } } },
    {
      field: 'number',
      kind: 'number',
      label: { words: ['DOCUMENTO', 'DOCUMENT'], at: { x: -1.52, y: 0.03 } },
      box: { x0: -1.56, x1: -0.72, y0: 0.11, y1: 0.27 },
    },
  ],
  portrait: { x0: -1.6, x1: -0.64, y0: -1.12, y1: 0.0 },
  labels: {
    windows: [{ x0: -1.65, x1: 0.66, y0: -1.25, y1: 0.32 }],
    capitals: 0.028,
    tallest: 0.16,
    reach: { rows: 0.12, left: 0.35, right: 0.9 },
    anchor: { x0: -0.01, x1: 1.03, y0: 0.03, y1: 0.3 },
    photo: { x0: -1.6, x1: -0.7, y0: -1.12, y1: 0 },
    photoJoinsNothing: true,
    widestAspect: WIDEST_2012_FRONT_LINE,
  },
};

// Measured on the 2009 specimen in units of its MRZ's height (98 px at 91,366 on a 768×517 image): the
// labels (`APELLIDO/S:`, `NOMBRE/S:`, `NUMERO DE DOCUMENTO:`, `NACIONALIDAD:`, `FECHA DE EXPEDICION:`,
// `FECHA DE VENCIMIENTO`) in Spanish only, each over its value in the left column, `SEXO: F` on one line
// beside them; no birth date on this face (the card prints it on the back). Its capitals stand 0.07.
const DNI_2009_FRONT: Layout = {
  fields: [
    {
      field: 'surname',
      kind: 'name',
      label: { words: ['APELLIDO'], at: { x: -0.34, y: -2.64 } },
      box: { x0: -0.34, x1: 2.4, y0: -2.52, y1: -2.22 },
    },
    {
      field: 'given_names',
      kind: 'name',
      label: { words: ['NOMBRE'], at: { x: -0.34, y: -2.18 } },
      box: { x0: -0.34, x1: 2.4, y0: -2.09, y1: -1.8 },
    },
    {
      field: 'number',
      kind: 'number',
      label: { words: ['NUMERO', 'DOCUMENTO'], at: { x: -0.34, y: -1.74 } },
      box: { x0: -0.34, x1: 1.2, y0: -1.67, y1: -1.41 },
    },
    {
      field: 'sex',
      kind: 'sex',
      label: { words: ['SEXO'], at: { x: 2.54, y: -1.71 } },
      inline: true,
      box: { x0: 2.5, x1: 3.25, y0: -1.84, y1: -1.57 },
    },
    { field: 'nationality', kind: 'nationality', label: { words: ['NACIONALIDAD'], at: { x: -0.34, y: -1.33 } } },
    { field: 'issue_date', kind: 'date', label: { words: ['EXPEDICION'], at: { x: -0.34, y: -0.92 } } },
    {
      field: 'expiry_date',
      kind: 'date',
      label: { words: ['VENCIMIENTO'], at: { x: -0.34, y: -0.49 } },
      box: { x0: -0.34, x1: 1.2, y0: -0.41, y1: -0.14 },
    },
  ],
  portrait: { x0: 3.4, x1: 5.7, y0: -3.15, y1: -0.3 },
  labels: {
    windows: [{ x0: -0.6, x1: 3.45, y0: -2.85, y1: -0.03 }],
    capitals: 0.06,
    tallest: 0.32,
    reach: { rows: 0.25, left: 0.5, right: 1.5 },
  },
};

// The backs print the CUIL, which the 2009 card's barcode and the 2012+ card's 8-field barcode do not
// carry: without it the CUIL checks cannot run on those cards. No back specimen is in the reference set;
// measured on the corpus's backs (packages/corpus/src/render/layouts.ts, modelled on photographs of
// issued cards): the bold `CUIL: NN-NNNNNNNN-N` line above the address block's end. 2009 back in units
// of its PDF417's width (560 px at 40,300 on an 856×540 card: the line at 40–255, 152–167);
// 2012+ back in units of its TD1 MRZ's height (about 145 px at 47,361: the line at 40–255, 157–172).
const DNI_2009_BACK: Layout = {
  fields: [{ field: 'cuil', kind: 'cuil', box: { x0: -0.04, x1: 0.5, y0: -0.29, y1: -0.215 } }],
};
const DNI_2012_BACK: Layout = {
  fields: [{ field: 'cuil', kind: 'cuil', box: { x0: -0.15, x1: 1.75, y0: -1.5, y1: -1.22 } }],
};

// A TD3 data page in units of its MRZ's width. ICAO 9303 part 4 puts the visual zone's captions in the
// national language with English, French or Spanish beside it: the labels are looked for in those three.
// The document number at the top right, under its label: on the ICAO specimen (the reference
// set of docs/design.md) the value at 0.79–0.93 × −0.47…−0.44, on the corpus's pages 0.68–0.81 ×
// −0.54…−0.52; the block box takes both with their labels when the label is not found. The photo is above
// the MRZ's left third (the ICAO specimen); the visual zone right of it, from under the state's name down
// to the MRZ; labels' capitals 0.008 (ICAO's 0.009, the corpus's 0.0077).
const PASSPORT_TD3: Layout = {
  fields: [
    {
      field: 'number',
      kind: 'passport_number',
      // At the top right of the visual zone (ICAO 9303-4's zone I), not the page's title (`PASAPORTE /
      // PASSPORT`), which reads as much like it.
      label: { words: ['PASSPORTNO', 'PASSPORTNUMBER', 'PASAPORTEN', 'NDEPASSEPORT'], at: { x: 0.7, y: -0.53 } },
      box: { x0: 0.6, x1: 1.02, y0: -0.585, y1: -0.415 },
      lines: 4,
    },
    { field: 'surname', kind: 'name', label: { words: ['SURNAME', 'APELLIDO'] } },
    { field: 'given_names', kind: 'name', label: { words: ['GIVEN', 'NOMBRES', 'PRENOMS'] } },
    { field: 'sex', kind: 'sex', label: { words: ['SEXO', 'SEXE', 'SEX'] } },
    { field: 'birth_date', kind: 'date', label: { words: ['BIRTH', 'NACIMIENTO', 'NAISSANCE'] } },
    { field: 'expiry_date', kind: 'date', label: { words: ['EXPIRY', 'VENCIMIENTO', 'EXPIRATION'] } },
  ],
  portrait: { x0: -0.02, x1: 0.36, y0: -0.5, y1: -0.03 },
  labels: {
    windows: [{ x0: 0.25, x1: 1.05, y0: -0.7, y1: -0.02 }],
    capitals: 0.007,
    tallest: 0.05,
    reach: { rows: 0.06, left: 0.25, right: 0.3 },
    photo: { x0: -0.02, x1: 0.3, y0: -0.5, y1: -0.03 },
  },
};

const LAYOUTS: Record<PrintedLayout, Layout> = {
  dni_2012_front: DNI_2012_FRONT,
  dni_2009_front: DNI_2009_FRONT,
  dni_2012_back: DNI_2012_BACK,
  dni_2009_back: DNI_2009_BACK,
  passport_td3: PASSPORT_TD3,
};

/**
 * The printed fields each check needs from a front (`readSide` asks for a retake when one of them cannot
 * be settled): what the data consistency compares with the barcode or MRZ, and on the 2012+ front the
 * expiry date, which its barcode does not carry. The 2009 front's expiry is its MRZ's. A passport's
 * visual zone is compared where it is settled, never asked for again: its MRZ, check-digit bound, is the
 * document's authority, and its small print is lost in blurred and dim photos whose MRZ still reads
 * (corpus seed 32, 24 pages: asking for its names and number took genuine pages accepted within three
 * photos to 6 of 12, none of the blurred or dim ones).
 */
export const PRINT_NEEDED: Partial<Record<PrintedLayout, readonly PrintedFieldName[]>> = {
  dni_2012_front: ['surname', 'given_names', 'number', 'sex', 'birth_date', 'expiry_date'],
  dni_2009_front: ['surname', 'given_names', 'number', 'sex'],
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
  nationality: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ ',
  series: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
};

export interface PrintedField {
  text: string;
  confidence: number;
}

/**
 * What the reads of one printed field came to:
 * - `agrees`: a read says what the machine-readable source of the same side says (its barcode or MRZ); the
 *   field is given as that source writes it (a read matching it exactly is no accident of OCR);
 * - `differs`: reads of different crops or engines say the same thing (two; three for a single letter)
 *   and it is not what the source says: the print was altered, or is another card's, and the field is
 *   given as read (the data consistency fails on it);
 * - `read`: nothing to compare it with on the side, and reads said the same as for `differs`;
 * - `unread`: the reads did not settle it (unread, misread, or each read saying something else).
 */
export type PrintedStatus = 'agrees' | 'differs' | 'read' | 'unread';

export interface PrintedReading {
  layout: PrintedLayout;
  /** The fields settled (`status` other than `unread`), as the domain model writes them. */
  fields: Partial<DocumentFields>;
  /** Every field's last read: its raw text and confidence, kept or not, for support ("why was this rejected?"). */
  raw: Partial<Record<PrintedFieldName, PrintedField>>;
  status: Partial<Record<PrintedFieldName, PrintedStatus>>;
  /**
   * What each look at a name gave, in order (looks that gave nothing left out): a name settled `read` on
   * a side with nothing to compare it with is settled again against another side's barcode or MRZ
   * (`settleNameAgainst`). Absent from readings stored before it was kept.
   */
  nameReads?: Partial<Record<NameField, string[]>>;
  /** The fields whose label was found on the card. */
  labels: PrintedFieldName[];
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

/** A nationality as printed (`ARGENTINA`), as its ICAO code; null for a name we do not know. */
function parseNationality(text: string): string | null {
  const name = text.replace(/[^A-Z]/g, '');
  const code = normaliseCountry(name);
  return code !== null && code.length === 3 && name.length > 3 ? code : null;
}

/** The DNI's ejemplar: one letter. */
function parseSeries(text: string): string | null {
  const match = /^([A-Z])$/.exec(text.trim());
  return match === null ? null : match[1]!;
}

/** The sex: one letter, alone or after its label (`SEXO: F`); more letters are a misread (`F M F M M`). */
function parseSex(text: string): Sex | null {
  const match = /(?:^|[\s:.])([MFX])$/.exec(text.trim());
  return match === null ? null : (match[1] as Sex);
}

const PRINTED_YEARS = { first: 1900, last: 2099 } as const;

// The months as the cards print them, Spanish and English (parsers/dates.ts `normaliseDate` knows them).
const MONTH_WORDS = [
  'ENE',
  'JAN',
  'FEB',
  'MAR',
  'ABR',
  'APR',
  'MAY',
  'JUN',
  'JUL',
  'AGO',
  'AUG',
  'SEP',
  'SET',
  'OCT',
  'NOV',
  'DIC',
  'DEC',
];

/**
 * A printed date, "01 NOV/ NOV 1969" (Spanish / English month), as ISO; OCR may drop the spaces around the
 * slash. The day stands after no letter or digit: in "23 A601 AUG 1974" (AGO/ misread) no date is read,
 * where "01 AUG 1974" was taken from inside the misread month and rejected a genuine card (seed 99). The
 * two months must name the same month; one of them misread by a letter (`NOY/ NOV`, `OV/ NOV`) still does
 * when it is a letter away from that month's word only, and a misread first month stands apart from the
 * day (in "62 5UL/ JUL 2041", 02 JUL misread, no date is read: not the 5th of July).
 */
export function parsePrintedDate(text: string): string | null {
  // Days print with two digits: a 0 between a day and two letters is OCT's O (`310CT/ OCT 2002`), as is
  // a 0 before CT anywhere (`OCT/0CT`).
  const upper = text
    .toUpperCase()
    .replace(/(\d{2})\s*0([A-Z]{2})/, '$1 O$2')
    .replace(/0CT/g, 'OCT');
  // Between the months, a slash and any specks the engine read beside it (`MAR/.MAR`).
  const match =
    /(?<![A-Z0-9])(\d{1,2}|[\dODQUSIZB]{2})(\s+|(?<=\d))([A-Z]{2,3})[\s/.,]*([A-Z]{2,3})?\s*(\d{4})/.exec(upper) ??
    /(?<![A-Z0-9])(\d{1,2})()([A-Z]{2,3})[\s/.,]*([A-Z]{2,3})?\s*(\d{4})/.exec(upper);
  if (match === null) return null;
  const [, dayAsRead = '', space = '', month = '', english, year = ''] = match;
  // A day's two digits with a digit read as its look-alike letter (`Q5`, `QS`, `U5` for 05 where the 2012
  // card's seal crosses it): the months and the year still have to hold.
  const day = dayAsRead
    .replace(/[ODQU]/g, '0')
    .replace(/S/g, '5')
    .replace(/I/g, '1')
    .replace(/Z/g, '2')
    .replace(/B/g, '8');
  // A card's dates fall in these years; another is a misread digit (seed 99: `9015` for 2015).
  if (Number(year) < PRINTED_YEARS.first || Number(year) > PRINTED_YEARS.last) return null;
  const dated = (word: string) => normaliseDate(`${day} ${word} ${year}`);
  const first = dated(month);
  if (english === undefined) return first;
  const second = dated(english);
  if (first !== null && second !== null) return first === second ? first : null;
  const read = first ?? second;
  const other = first === null ? month : english;
  // A misread first month stands apart from the day: `5UL` is more likely a misread `JUL` than the 5th.
  if (read === null || (first === null && space === '')) return null;
  const near = MONTH_WORDS.filter((word) => editDistance(word, other, 1) <= 1);
  return near.length > 0 && near.every((word) => dated(word) === read) ? read : null;
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
    case 'nationality':
      return parseNationality(text);
    case 'series':
      return parseSeries(text);
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
 * The digits a dim or blurred print turns into one another, in groups: within a group, the glyphs differ
 * by a stroke or a gap (a 9 whose loop fills reads 8, a 3 whose left closes reads 8 or 9, a 6 or 5 half
 * lost reads 5 or 6; a 4 whose crossbar and diagonal blur away reads 1, as a 7 whose bar fades).
 */
const CONFUSABLE_DIGIT_GROUPS: readonly ReadonlySet<string>[] = [new Set('035689'), new Set('147')];

function confusable(digit: string, other: string): boolean {
  return CONFUSABLE_DIGIT_GROUPS.some((group) => group.has(digit) && group.has(other));
}

/**
 * Whether a printed number read at the source's length differs from it only where a digit and the
 * source's are confusable (`CONFUSABLE_DIGIT_GROUPS`): s31-000070, a dim 2012 front, `33.659.631` read
 * twice, in two looks, for 93.659.631; s99-000104, a blurred 2012 front, `1.372.083` read twice for
 * 4.372.083. Two looks at one photo see the same blurred glyph, so such reads are weak evidence of an
 * altered print: `settle` wants three alike.
 */
export function differsOnlyByConfusableDigits(read: string, source: string): boolean {
  const digits = read.replace(/\D/g, '');
  const sourceDigits = source.replace(/\D/g, '');
  if (digits.length !== sourceDigits.length || digits === sourceDigits) return false;
  return [...digits].every((digit, index) => digit === sourceDigits[index] || confusable(digit, sourceDigits[index]!));
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

export interface PrintedReadOptions {
  /** Only these fields of the layout; every field otherwise. */
  only?: readonly PrintedFieldName[];
  /**
   * What the machine-readable source of the same side says (the 2012+ front's barcode, the 2009 front's
   * or a passport's MRZ), which each field is settled against (`PrintedStatus`). It may still be coming:
   * an MRZ's names are judged by the second engine while the print is read; name fields are settled last.
   */
  expected?: ComparableFields | Promise<ComparableFields>;
  /** A field's own test of agreement with the source, instead of the fields' comparison (a passport's number). */
  agrees?: Partial<Record<PrintedFieldName, (value: string) => boolean>>;
  /**
   * The fields a check needs: read again (own crop, then the other engine) until settled. Every other
   * field is read once, from the stacked pass or its own crop, and kept when confident.
   */
  needed?: readonly PrintedFieldName[];
  /**
   * Read nothing more when fewer than this many of the layout's labels are found: the print is another
   * layout's (a 2012+ back's address and CUIL where the 2009 front has its names).
   */
  minLabels?: number;
}

/** How a field's value was placed on the card: its own pixels (a run under its label), or the specimen's box. */
type Placement = { kind: 'run'; region: PixelRegion; stacked: PrintedField | null } | { kind: 'box'; box: LayoutBox };

interface Read {
  value: string | null;
  raw: PrintedField;
  /** Evidence only when it says what the source implies (`FieldBox.implied`), never one of two reads alike. */
  impliedOnly?: boolean;
  /** Evidence only when it says what the source says (`agrees`), never one of two reads alike. */
  agreeOnly?: boolean;
}

async function impliedOnly(read: Promise<Read | 'timeout'>): Promise<Read | 'timeout'> {
  const done = await read;
  return done === 'timeout' ? done : { ...done, impliedOnly: true };
}

async function agreeOnly(read: Promise<Read | 'timeout' | null>): Promise<Read | 'timeout' | null> {
  const done = await read;
  return done === 'timeout' || done === null ? done : { ...done, agreeOnly: true };
}

/**
 * The runs of text of the layout's label area read in one pass, which of them are which field's label,
 * and where each field's value is (the run under its label, or after it on its line).
 */
async function placeByLabels(
  frame: CardFrame,
  layout: Layout,
  boxes: readonly FieldBox[],
): Promise<{
  placements: Map<PrintedFieldName, Placement>;
  labels: PrintedFieldName[];
  passes: number;
  blank: PixelRegion[];
}> {
  const placements = new Map<PrintedFieldName, Placement>();
  const spec = layout.labels;
  if (spec === undefined) return { placements, labels: [], passes: 0, blank: [] };
  const { turned, unit } = frame;
  const windows = spec.windows.flatMap((box) => {
    const region = pixelRegion(frame, box);
    return region === null ? [] : [region];
  });
  const photo = spec.photo === undefined ? null : pixelRegion(frame, spec.photo);
  const anchor = spec.anchor === undefined ? null : pixelRegion(frame, spec.anchor);
  const blank = anchor === null ? [] : [anchor];
  const read = await readTextRuns(turned, windows, {
    textPx: spec.capitals * unit,
    maxHeightPx: spec.tallest * unit,
    exclude: photo === null ? [] : [photo],
    blank,
    // Not in the crops read: on the RENAPER specimen's 900 px scan the expiry's day stands at the photo
    // box's edge, and made paper there it was not read.
    apart: spec.photoJoinsNothing === true && photo !== null ? [photo] : [],
    ...(spec.widestAspect === undefined ? {} : { widestAspect: spec.widestAspect }),
  });
  if (read === null) return { placements, labels: [], passes: 1, blank: [] };
  const { runs } = read;

  // Each labelled field takes the run that reads most like its label, among the runs within its reach of
  // the label's specimen place (`reach`: a title elsewhere on the card may hold the same word) and that
  // no other field's label reads more like; the nearer its place first when two read alike.
  const labelled = layout.fields.filter((box) => box.label !== undefined);
  const labelOf = new Map<PrintedFieldName, LocatedText>();
  const offset = (run: LocatedText, box: FieldBox) => {
    const at = box.label?.at;
    return at === undefined
      ? null
      : { dx: (run.left - frame.origin.x) / unit - at.x, dy: (run.top - frame.origin.y) / unit - at.y };
  };
  const withinReach = (run: LocatedText, box: FieldBox) => {
    const away = offset(run, box);
    const reach = spec.reach;
    return (
      away === null ||
      reach === undefined ||
      (Math.abs(away.dy) <= reach.rows && away.dx >= -reach.left && away.dx <= reach.right)
    );
  };
  const distances = runs.map((run) =>
    labelled.map((box) =>
      readsAsLabel(run.text, box.label!.words) && withinReach(run, box) ? labelDistance(run.text, box.label!.words) : Infinity,
    ),
  );
  labelled.forEach((box, column) => {
    let best: { run: LocatedText; distance: number; away: number } | null = null;
    runs.forEach((run, row) => {
      const distance = distances[row]![column]!;
      if (!Number.isFinite(distance) || distances[row]!.some((other) => other < distance)) return;
      const shift = offset(run, box);
      const away = shift === null ? 0 : Math.abs(shift.dx) + Math.abs(shift.dy);
      if (best === null || distance < best.distance || (distance === best.distance && away < best.away))
        best = { run, distance, away };
    });
    if (best !== null) labelOf.set(box.field, (best as { run: LocatedText }).run);
  });
  const labelRuns = new Set(labelOf.values());

  for (const box of boxes) {
    const label = labelOf.get(box.field);
    if (label === undefined) continue;
    const columnLeft = box.box === undefined ? null : frame.origin.x + box.box.x0 * unit;
    const row =
      box.inline === true
        ? valueAfter(label, runs, labelRuns)
        : valueUnder(label, runs, labelRuns, columnLeft, box.kind === 'date' ? 3.5 : 2);
    if (row === null) continue;
    placements.set(box.field, row);
  }
  return { placements, labels: [...labelOf.keys()], passes: read.passes, blank };
}

const overlapsVertically = (a: TextFragment, b: TextFragment) =>
  Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) >= 0.5 * Math.min(a.bottom - a.top, b.bottom - b.top);

/**
 * The value under a label: the line of runs nearest below it (before the next label down), between the
 * label's left edge and the next label of the label's own line (the 2012 card's `Sexo / Sex`,
 * `Nacionalidad / Nationality` and `Ejemplar` head three columns). Values stand left-aligned with their
 * labels; where the label's start was lost (the 2012 card's seal over `Fecha de vencimiento`, leaving
 * `Date of expiry`), the column starts at the specimen's (`columnLeft`, px) if that is further left. The
 * value's region spans its line from the column's start, so that a part of it lost to a merged run (the
 * seal over a date's day) is still in the crop read on its own.
 */
function valueUnder(
  label: LocatedText,
  runs: readonly LocatedText[],
  labelRuns: ReadonlySet<LocatedText>,
  columnLeft: number | null,
  startSlack = 2,
): Placement | null {
  const height = label.bottom - label.top;
  const left = Math.min(label.left, columnLeft ?? label.left) - 0.5 * height;
  const nextColumn = Math.min(
    ...[...labelRuns]
      .filter((other) => other !== label && overlapsVertically(other, label) && other.left > label.right)
      .map((other) => other.left - 0.5 * height),
  );
  // The next label down the same column ends the band (not one of another column: the 2009 card's
  // `SEXO: F` beside the number's value).
  const nextLabel = Math.min(
    ...[...labelRuns]
      .filter((other) => other.top > label.bottom && Math.abs(other.left - label.left) <= 3 * height)
      .map((other) => other.top),
  );
  // A label of capitals alone (`Sexo / Sex`) is half as tall as its value, which stands a value's height below.
  const bottom = Math.min(label.bottom + 3.5 * height, nextLabel);
  // A value's letters stand at least as tall as its label's; a smaller run is an accent's (Ñ's tilde
  // above its letter, split from it), a speck, or a stroke of something else.
  const inBand = runs
    .filter((run) => {
      const centre = (run.top + run.bottom) / 2;
      return (
        !labelRuns.has(run) &&
        run.bottom - run.top >= 0.6 * height &&
        centre > label.bottom &&
        centre < bottom &&
        run.right > left &&
        run.left < nextColumn
      );
    })
    .sort((a, b) => a.left - b.left);
  // The value starts at the column's left edge: the topmost run starting there is on its line (a run
  // further right may belong to another column, or be a caption beside it: `FIRMA DEL IDENTIFICADO`).
  // A date's run up to 3.5 label heights from it (`startSlack`): the 2012 card's seal may take its day
  // into its own ink, and the run then starts at the month (seed 31: a dim front's expiry run 0.09
  // units right of its label).
  const starting = inBand.filter((run) => run.left <= Math.max(label.left, left + 0.5 * height) + startSlack * height);
  if (starting.length === 0) return null;
  const nearest = starting.reduce((best, run) => (run.top < best.top ? run : best));
  // The value's line: the runs beside the nearest one, as tall as it (not the taller number or the smaller
  // label of a neighbouring column), each a space's width from the next.
  const lineHeight = nearest.bottom - nearest.top;
  const alike = inBand.filter(
    (run) =>
      overlapsVertically(run, nearest) && run.bottom - run.top <= 1.6 * lineHeight && run.bottom - run.top >= 0.6 * lineHeight,
  );
  const at = alike.indexOf(nearest);
  let first = at;
  let last = at;
  while (first > 0 && alike[first]!.left - alike[first - 1]!.right <= 1.5 * lineHeight) first -= 1;
  while (last < alike.length - 1 && alike[last + 1]!.left - alike[last]!.right <= 1.5 * lineHeight) last += 1;
  const line = alike.slice(first, last + 1);
  const lineTop = Math.min(...line.map((run) => run.top));
  const lineBottom = Math.max(...line.map((run) => run.bottom));
  const margin = 0.15 * (lineBottom - lineTop);
  const regionLeft = Math.max(0, Math.min(left, line[0]!.left));
  const regionRight = Math.min(nextColumn, Math.max(...line.map((run) => run.right)) + lineHeight);
  const text = line.map((run) => run.text).join(' ');
  return {
    kind: 'run',
    region: {
      left: Math.round(regionLeft),
      top: Math.round(lineTop - margin),
      width: Math.round(regionRight - regionLeft),
      height: Math.round(lineBottom - lineTop + 2 * margin),
    },
    stacked: text.trim() === '' ? null : { text, confidence: Math.min(...line.map((run) => run.confidence)) },
  };
}

/** The value after its label on its line (`SEXO: F`): the label's own run, and the next one on its line. */
function valueAfter(label: LocatedText, runs: readonly LocatedText[], labelRuns: ReadonlySet<LocatedText>): Placement | null {
  const height = label.bottom - label.top;
  const next = runs
    .filter(
      (run) =>
        run !== label &&
        !labelRuns.has(run) &&
        overlapsVertically(run, label) &&
        run.left >= label.right &&
        run.left - label.right <= 3 * height,
    )
    .sort((a, b) => a.left - b.left)[0];
  const line = next === undefined ? [label] : [label, next];
  const left = label.left;
  const right = line[line.length - 1]!.right;
  const text = line.map((run) => run.text).join(' ');
  return {
    kind: 'run',
    region: { left, top: label.top, width: right - left, height: label.bottom - label.top },
    stacked: text.trim() === '' ? null : { text, confidence: Math.min(...line.map((run) => run.confidence)) },
  };
}

function pixelRegion(frame: CardFrame, box: LayoutBox): PixelRegion | null {
  const region = relativeRegion(frame, box);
  return region === null ? null : toPixels(region, frame.turned.width, frame.turned.height);
}

/**
 * Reads the layout's printed fields and settles each (`PrintedStatus`). Bounded by the layout: one
 * stacked pass, then at most two passes per field it needs and one per other field; the side's safety
 * clock alone can end it early.
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
  const status: PrintedReading['status'] = {};
  const nameReads: NonNullable<PrintedReading['nameReads']> = {};
  const boxes = LAYOUTS[layout].fields.filter((box) => options.only === undefined || options.only.includes(box.field));
  const located = await placeByLabels(frame, LAYOUTS[layout], boxes);
  let passes = located.passes;
  const done = () => ({ layout, fields, raw, status, nameReads, labels: located.labels, passes, ms: Date.now() - started });
  if (options.minLabels !== undefined && located.labels.length < options.minLabels) return done();

  /**
   * One OCR pass over `placed` for `box`'s field; 'timeout' when the engine gave up, null with no crop.
   * `stretched`: the crop smoothed and stretched before it is thresholded, as a dim photo's is.
   */
  const readBox = async (box: FieldBox, placed: LayoutBox, stretched = false): Promise<Read | 'timeout' | null> => {
    const region = relativeRegion(frame, placed);
    if (region === null) return null;
    const scale = (FIELD_HEIGHT_PX * (box.lines ?? 1)) / (region.height * frame.turned.height);
    let crop = stretched
      ? await stretchedThenThresholded(frame.turned, region, scale)
      : await greyVariant(frame.turned, { region, scale, normalise: true, threshold: INK_THRESHOLD });
    if (!stretched && inkShare(crop) > MAX_BLOCK_INK_SHARE) crop = await stretchedThenThresholded(frame.turned, region, scale);
    if (box.lines !== undefined && inkShare(crop) > MAX_BLOCK_INK_SHARE) return null;
    passes += 1;
    const mode = box.lines === undefined ? 'line' : 'block';
    const ocr = await recognise(await pngOfRaster(crop), { whitelist: WHITELISTS[box.kind], mode }).catch(timedOut);
    if (ocr === null) return 'timeout';
    const read =
      mode === 'block'
        ? valueOfBlock(box.kind, ocr, options.agrees?.[box.field])
        : { text: ocr.text.replace(/\s+/g, ' ').trim(), confidence: ocr.confidence, value: undefined };
    const value = read.value === undefined ? parseField(box.kind, read.text) : read.value;
    return { raw: { text: read.text, confidence: Math.round(read.confidence) }, value };
  };
  /** One OCR pass over a run of the card's own print, by `engine`. */
  const readRun = async (
    box: FieldBox,
    region: PixelRegion,
    engine: OcrEngine,
    look: ValueLook = { heightPx: VALUE_RUN_PX, inkMax: VALUE_INK_MAX },
  ): Promise<Read | 'timeout'> => {
    const { crop } = await binarisedRun(frame.turned, region, look.heightPx, {
      inkMax: look.inkMax,
      ...(look.darkest === undefined ? {} : { darkest: look.darkest }),
      // The looks that only confirm an implied value keep the barcode's pixels: in a photo in
      // perspective the expiry's last digit enters the barcode's box (`17 FEB/ FEB 2M`), and a stray bar
      // read after the year is no harm there.
      blank: look.paperAround === true ? [] : located.blank,
      paperAround: look.paperAround === true,
    });
    passes += 1;
    const ocr = await recognise(await pngOfRaster(crop), { whitelist: WHITELISTS[box.kind], mode: 'line', engine }).catch(
      timedOut,
    );
    if (ocr === null) return 'timeout';
    const text = ocr.text.replace(/\s+/g, ' ').trim();
    return { raw: { text, confidence: Math.round(ocr.confidence) }, value: parseField(box.kind, text) };
  };
  /** Whether a source may say the field (a field the source never carries, such as the 2012 expiry, is implied at most). */
  const mayAgree = (box: FieldBox) =>
    options.agrees?.[box.field] !== undefined || (options.expected !== undefined && box.implied === undefined);
  /** The reads a field may get, in order, each made only when the ones before did not settle it. */
  const readsOf = (box: FieldBox, placement: Placement | undefined): (() => Promise<Read | 'timeout' | null>)[] => {
    if (placement?.kind === 'run') {
      const stacked = placement.stacked;
      return [
        () =>
          Promise.resolve(stacked === null ? null : { raw: stacked, value: parseField(box.kind, stacked.text.toUpperCase()) }),
        () => readRun(box, placement.region, 'lstm'),
        // Only where the source implies the value: these looks' reads settle it by saying that value, and
        // count for nothing else (more reads, more chances of two misreads alike).
        ...(box.implied === undefined ? [] : [() => impliedOnly(readRun(box, placement.region, 'lstm', DARKEST_LOOK))]),
        () => readRun(box, placement.region, 'legacy'),
        () => readRun(box, placement.region, 'lstm', FINE_LOOK),
        () => readRun(box, placement.region, 'lstm', LARGE_LOOK),
        ...(box.implied === undefined ? [] : [() => impliedOnly(readRun(box, placement.region, 'lstm', DEEPEST_LOOK))]),
      ];
    }
    if (box.box === undefined) return [];
    const measured = box.box;
    // A line is read on the row of text nearest its box first and, when that keeps nothing, in the box as
    // measured: on the corpus's fronts the row reads more (seed 99, 60 DNI fronts: surnames 0 -> 18,
    // numbers 24 -> 33), on the 2012 specimen the box as measured reads its number and the row does not.
    const snapped = box.lines === undefined ? snapToTextRow(frame.turned, frame.origin, frame.unit, measured) : measured;
    const placements = snapped.y0 === measured.y0 && snapped.y1 === measured.y1 ? [measured] : [snapped, measured];
    // Then each placement stretched before it is thresholded, its read counting only when it says what
    // the source says: grey print under a glare or a blur fades out at the fixed threshold (a 2009 front's
    // `SEXO: F`, whose crop came out blank on seed 31's s31-000020 and -059), and a look that can only
    // agree adds no way to settle a wrong value.
    const boxReads = [
      ...placements.map((placed) => () => readBox(box, placed)),
      ...(box.lines === undefined && mayAgree(box)
        ? placements.map((placed) => () => agreeOnly(readBox(box, placed, true)))
        : []),
    ];
    // An implied value whose label was not found (a tilted 2012 front's expiry label joined to its value
    // in one run) is looked at in its row's crop as under a label, the reads counting only for that value.
    const row = box.implied === undefined ? null : pixelRegion(frame, snapped);
    if (row === null) return boxReads;
    return [
      ...boxReads,
      () => impliedOnly(readRun(box, row, 'lstm', DARKEST_LOOK)),
      () => impliedOnly(readRun(box, row, 'lstm', DEEPEST_LOOK)),
    ];
  };

  // Names last: an MRZ's names may still be being judged by the other engine (`expected`).
  const ordered = [...boxes.filter((box) => box.kind !== 'name'), ...boxes.filter((box) => box.kind === 'name')];
  const expired = () => clock?.expired === true;
  for (const box of ordered) {
    if (expired()) break;
    const needed = options.needed?.includes(box.field) === true;
    const reads: Read[] = [];
    let settled: { value: string; status: PrintedStatus } | null = null;
    let timedOutHere = false;
    // A field no check needs gets two reads at most: what it settles is for support, not for a verdict.
    const attempts = readsOf(box, located.placements.get(box.field)).slice(0, needed ? undefined : 2);
    for (const attempt of attempts) {
      if (expired()) break;
      const read = await attempt();
      // A crop the engine could not finish is noise; the fields after it would fare no better.
      if (read === 'timeout') {
        timedOutHere = true;
        break;
      }
      if (read === null) continue;
      reads.push(read);
      raw[box.field] = read.raw;
      if (isNameField(box.field) && read.value !== null && read.agreeOnly !== true)
        (nameReads[box.field] ??= []).push(read.value);
      settled = await settle(box, reads, options);
      if (settled !== null) break;
    }
    status[box.field] = settled?.status ?? 'unread';
    if (settled !== null) (fields as Record<string, string>)[box.field] = settled.value;
    if (timedOutHere) break;
  }
  return done();
}

function timedOut(error: unknown): null {
  if (error instanceof OcrTimeoutError) return null;
  throw error;
}

/** The printed fields that are names, which OCR's slips and a zone's cut make special. */
export const NAME_FIELDS = ['surname', 'given_names'] as const;
type NameField = (typeof NAME_FIELDS)[number];

function isNameField(field: PrintedFieldName): field is NameField {
  return (NAME_FIELDS as readonly string[]).includes(field);
}

/**
 * Whether a read name is the source's cut at either end (`FLORENC` for FLORENCIA, under a glare, read so
 * twice): an altered letter changes a name, it does not shorten it from its end, so such a read settles
 * nothing.
 */
function cutFrom(source: string): (value: string) => boolean {
  const sourceNames = [...nameKeys(source)];
  return (value) =>
    [...nameKeys(value)].some((key) =>
      sourceNames.some((whole) => key !== whole && (whole.startsWith(key) || whole.endsWith(key))),
    );
}

/**
 * A name its side settled `read` (nothing there to compare it with: a 2009 front whose zone's names were
 * withheld), settled again against the name another side's barcode or MRZ gives, by `settle`'s rules: a
 * look that read the source's name is an OCR slip elsewhere (`agrees`, the source's value); two looks
 * alike saying another name are the print's own letters (`differs`); else nothing is settled (null).
 * Without it the name kept OCR's tolerance against the other side, and a print altered by one letter
 * passed as a slip (bench/documents printed.mjs, seed 31: s31-000079, `BUIZ` read twice for RUIZ).
 */
export function settleNameAgainst(
  field: NameField,
  looks: readonly string[],
  source: ComparableFields,
): { value: string; status: 'agrees' | 'differs' } | null {
  const named = source[field];
  if (named === null || named === undefined) return null;
  const agreeing = looks.find((look) => fieldsAgree({ [field]: look }, source, field) === true);
  if (agreeing !== undefined) return { value: named, status: 'agrees' };
  const cut = cutFrom(named);
  const parsed = looks.filter((look) => !cut(look));
  for (const candidate of parsed) {
    const alike = parsed.filter((other) => fieldsAgree({ [field]: candidate }, { [field]: other }, field) === true);
    if (alike.length >= 2) return { value: candidate, status: 'differs' };
  }
  return null;
}

/**
 * What a field's reads so far settle, if anything: a read that says what the source says (`agrees`, at
 * any confidence: a misread matching the source exactly is no accident), or reads saying the same
 * (`differs` when the source says otherwise, `read` when it says nothing), never one read alone, however
 * confident (the 2009 specimen's issue date read `29 SEP 2000` once).
 */
async function settle(
  box: FieldBox,
  reads: readonly Read[],
  options: PrintedReadOptions,
): Promise<{ value: string; status: PrintedStatus } | null> {
  const field = box.field;
  const own = options.agrees?.[field];
  const expected = own === undefined && options.expected !== undefined ? await options.expected : undefined;
  const source = expected?.[field] ?? null;
  const hasSource = own !== undefined || source !== null;
  const matches = (value: string) =>
    own !== undefined ? own(value) : source !== null && fieldsAgree({ [field]: value }, expected!, field) === true;
  const agreeing = reads.find((read) => read.value !== null && read.impliedOnly !== true && matches(read.value));
  if (agreeing !== undefined) return { value: own !== undefined || source === null ? agreeing.value! : source, status: 'agrees' };
  // A field the source does not carry, read once as exactly what the source implies (the 2012 front's
  // expiry, fifteen years after the barcode's issue date): a misread landing on that very date is no
  // accident, as for `agrees`; it is still `read`, the source not saying it.
  const implied = !hasSource && expected !== undefined ? (box.implied?.(expected) ?? null) : null;
  if (implied !== null && reads.some((read) => read.value === implied && read.agreeOnly !== true))
    return { value: implied, status: 'read' };
  // The engines' confidence says little here (the LSTM engine gives 0 to a date it read right under a
  // whitelist): reads of different crops or engines saying the same are what settles a value. Two for a
  // name, a number or a date; all three for a single letter (a sex), which a misread turns into another
  // letter of the few allowed far more easily.
  // A number read with a digit more or less than the source's lost or gained it to OCR (a blurred
  // `1259785` for 12597853, read so twice): an altered print keeps the number's length.
  const sourceDigits = box.kind === 'number' && source !== null ? source.replace(/\D/g, '').length : null;
  const cut = box.kind === 'name' && source !== null ? cutFrom(source) : () => false;
  const parsed = reads.filter(
    (read) =>
      read.value !== null &&
      read.impliedOnly !== true &&
      read.agreeOnly !== true &&
      (sourceDigits === null || read.value.replace(/\D/g, '').length === sourceDigits) &&
      !cut(read.value),
  );
  // A number that differs from the source's only in digits a dim or blurred print confuses wants three
  // reads alike too: two looks at the same worn glyph may well misread it the same way (s31-000070).
  const wantedFor = (value: string) =>
    box.kind === 'sex' ||
    box.kind === 'series' ||
    (box.kind === 'number' && source !== null && differsOnlyByConfusableDigits(value, source))
      ? 3
      : 2;
  for (const candidate of parsed) {
    const alike = parsed.filter((other) => fieldsAgree({ [field]: candidate.value }, { [field]: other.value }, field) === true);
    if (alike.length >= wantedFor(candidate.value!)) return { value: candidate.value!, status: hasSource ? 'differs' : 'read' };
  }
  return null;
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
