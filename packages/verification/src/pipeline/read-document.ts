import { compareFields, comparable, withoutMisplacedValues, type ComparableFields } from '../checks/compare-fields';
import {
  checkCuil,
  checkDataConsistency,
  checkDocumentType,
  checkExpiry,
  checkMrz,
  checkReadable,
  type CheckVerdict,
  type NamedSource,
} from '../checks/document.checks';
import type { PreparedImage } from '../image/prepare-upload';
import {
  DOCUMENT_REASON_CODES,
  FIELD_NAMES,
  emptyDocumentFields,
  type DocumentFields,
  type DocumentReasonCode,
  type DocumentType,
  type FieldName,
  type Side,
} from '../model';
import { parseMrz } from '../parsers/mrz.parser';
import { hashDistance } from './perceptual-hash';
import { judgeAngledFront } from '../checks/angled-front';
import { printUnsettled, readSide, type ReadSideOptions, type SideReading } from './read-side';
import { NAME_FIELDS, settleNameAgainst } from '../readers/printed.reader';

/**
 * One document from its sides: each side read by `readSide`, then the fields merged and cross-checked.
 *
 * Merging: for each field the first source that has it, in this order: the DNI barcode, a valid MRZ,
 * an invalid MRZ, the printed text. The barcode and the MRZ are authoritative (the MRZ's check digits,
 * the barcode's error correction); the printed text only fills what they lack (the 2012 barcode carries
 * no expiry date) and is cross-checked against them.
 */
export type CheckStatus = 'passed' | 'failed' | 'inconclusive';

export type DocumentCheckName =
  'readable' | 'document_type' | 'side' | 'expiry' | 'mrz' | 'cuil' | 'print' | 'data_consistency' | 'angle' | 'screen';

export interface DocumentCheck {
  name: DocumentCheckName;
  verdict: CheckStatus;
  reason?: DocumentReasonCode;
  fields?: FieldName[];
  /** Names fields and problems, never the holder's data. */
  detail?: string;
}

export interface DocumentReading {
  doc_type: DocumentType | null;
  fields: DocumentFields;
  checks: DocumentCheck[];
  /** The reason codes of the failed checks, once each, in the closed set's order. */
  reasons: DocumentReasonCode[];
  sides: SideReading[];
  face_crop: Buffer | null;
  ms: number;
}

export interface ReadDocumentOptions {
  acceptedTypes: readonly DocumentType[];
  today: string;
  /** The type the person said they were showing; a different one is `document_type_mismatch`. */
  expectedType?: DocumentType;
  /** The searches' counted budgets per side (`ReadSideOptions.work`). */
  work?: ReadSideOptions['work'];
  /** Each side's wall-clock safety cap (`ReadSideOptions.safetyCapMs`). */
  safetyCapMs?: number;
}

/** The fields the printed text is cross-checked on, and what identifies a card across two photos. */
export const CROSS_CHECKED_FIELDS: readonly FieldName[] = ['surname', 'given_names', 'number', 'sex', 'birth_date'];
const IDENTITY_FIELDS: readonly FieldName[] = ['number', 'surname', 'given_names', 'birth_date'];

function fromVerdict(name: DocumentCheckName, verdict: CheckVerdict): DocumentCheck {
  switch (verdict.status) {
    case 'passed':
      return { name, verdict: 'passed' };
    case 'inconclusive':
      return { name, verdict: 'inconclusive', detail: verdict.detail };
    case 'failed':
      return {
        name,
        verdict: 'failed',
        reason: verdict.reason_code,
        detail: verdict.detail,
        ...(verdict.fields === undefined ? {} : { fields: verdict.fields }),
      };
  }
}

/** The sources of one side, authoritative first. */
function sourcesOf(side: SideReading): { name: string; fields: ComparableFields }[] {
  const sources: { name: string; fields: ComparableFields }[] = [];
  if (side.barcode_fields !== null) sources.push({ name: `barcode:${side.side}`, fields: side.barcode_fields });
  if (side.mrz_fields !== null && side.mrz !== null) {
    sources.push({ name: `mrz:${side.side}`, fields: comparable(side.mrz_fields, side.mrz.names_truncated) });
  }
  if (side.printed !== null) sources.push({ name: `printed:${side.side}`, fields: printedComparable(side.printed, side.mrz) });
  return sources;
}

/**
 * A side's printed fields as compared. Names settled against the side's barcode or MRZ (`agrees`,
 * `differs`) are compared exactly: the reading already told OCR's slips from the print's own letters, and
 * a name altered by one letter must not pass as a slip. Names with nothing to settle against on their
 * side (`read`) keep OCR's tolerance (`names_by_ocr`). A name that agreed with a zone whose name field is
 * full is given back as the zone has it, cut short (`MARIA<VICTOR`), and is compared as such
 * (`names_truncated`): compared whole, a genuine 2009 card's `MARIA VICTOR` failed against its back's
 * barcode `MARÍA VICTORIA` (seed 31, s31-000020).
 */
function printedComparable(printed: NonNullable<SideReading['printed']>, zone: SideReading['mrz']): ComparableFields {
  const byOcr = NAME_FIELDS.some((field) => (printed.status[field] ?? 'read') === 'read');
  const agreedWithCutZone = zone?.names_truncated === true && NAME_FIELDS.some((field) => printed.status[field] === 'agrees');
  return { ...printed.fields, names_by_ocr: byOcr, ...(agreedWithCutZone ? { names_truncated: true } : {}) };
}

/**
 * A side's names settled against less than the whole name, settled again against the document's other
 * sources from the looks the reading keeps (`settleNameAgainst`):
 * - names settled `read` (nothing on their side to compare them with), against the barcodes' and valid
 *   zones' names (`machine`): compared with OCR's tolerance instead, a print altered by one letter passed
 *   as a slip;
 * - names that `agrees`d with a zone whose name field is full (`MARIA<VICTOR`), against a barcode's whole
 *   name (`barcode`): the print past the zone's cut was checked against nothing. Without a barcode they
 *   are compared as cut short (`printedComparable`).
 * A name no longer settled is `unread`, and the print check then fails as for any needed field not read.
 */
function namesSettledAgainst(
  printed: NonNullable<SideReading['printed']>,
  zone: SideReading['mrz'],
  machine: ComparableFields,
  barcode: ComparableFields | null,
): typeof printed {
  let fields = printed.fields;
  let status = printed.status;
  for (const field of NAME_FIELDS) {
    const value = fields[field];
    if (value === null || value === undefined) continue;
    const looks = printed.nameReads?.[field];
    const against =
      status[field] === 'read'
        ? machine
        : status[field] === 'agrees' && zone?.names_truncated === true && looks !== undefined
          ? barcode
          : null;
    if (against === null || against[field] === null || against[field] === undefined) continue;
    // A name settled `read` was read alike by two looks at least; a reading stored before the looks were
    // kept has only its value, which stands for those two looks.
    const settled = settleNameAgainst(field, looks ?? [value, value], against);
    const { [field]: _dropped, ...others } = fields;
    fields = settled === null ? others : { ...fields, [field]: settled.value };
    status = { ...status, [field]: settled?.status ?? 'unread' };
  }
  return fields === printed.fields ? printed : { ...printed, fields, status };
}

/** The sides' fields, each from its most authoritative source; `machineOnly`: the barcodes' and valid MRZs'. */
function merge(sides: readonly SideReading[], machineOnly = false): DocumentFields {
  const ranked = [
    ...sides.flatMap((side) => (side.barcode_fields === null ? [] : [side.barcode_fields])),
    ...sides.flatMap((side) => (side.mrz?.valid === true && side.mrz_fields !== null ? [side.mrz_fields] : [])),
    ...(machineOnly
      ? []
      : [
          ...sides.flatMap((side) => (side.mrz?.valid === false && side.mrz_fields !== null ? [side.mrz_fields] : [])),
          ...sides.flatMap((side) => (side.printed === null ? [] : [side.printed.fields])),
        ]),
  ];
  const merged = emptyDocumentFields();
  for (const field of FIELD_NAMES) {
    for (const source of ranked) {
      const value = source[field];
      if (value !== null && value !== undefined) {
        (merged as unknown as Record<string, unknown>)[field] = value;
        break;
      }
    }
  }
  return merged;
}

/** What identifies the card on one side: its barcode, else its valid MRZ, else its printed text. */
function identityOf(side: SideReading): ComparableFields | null {
  if (side.barcode_fields !== null) return comparable(side.barcode_fields);
  if (side.mrz?.valid === true && side.mrz_fields !== null) return comparable(side.mrz_fields, side.mrz.names_truncated);
  if (side.printed !== null && Object.keys(side.printed.fields).length > 0) return printedComparable(side.printed, side.mrz);
  return null;
}

function angleCheck(front: SideReading | undefined, angled: SideReading | undefined): DocumentCheck | null {
  if (front === undefined || angled === undefined) return null;
  // The same card shown again from the same angle (or its photo sent twice) shows no physical card.
  const seen = judgeAngledFront(front, angled);
  if (seen.verdict === 'copy' || seen.verdict === 'not_tilted') {
    return {
      name: 'angle',
      verdict: 'failed',
      reason: 'document_angle_mismatch',
      detail:
        seen.verdict === 'copy'
          ? `front_angle is a copy of the front (likeness distance ${seen.distance})`
          : `the card's outline did not change between front and front_angle (${seen.outline_change})`,
    };
  }
  const a = identityOf(front);
  const b = identityOf(angled);
  const shared = a === null || b === null ? [] : IDENTITY_FIELDS.filter((field) => a[field] != null && b[field] != null);
  if (a !== null && b !== null && shared.length > 0) {
    const mismatched = compareFields(a, b, IDENTITY_FIELDS);
    // One name or one date alone is shared by relatives and strangers: agreement needs the number or
    // two fields. A disagreement on any field read on both is already a different document.
    const identifying = shared.includes('number') || shared.length >= 2;
    if (mismatched.length === 0) {
      return identifying
        ? { name: 'angle', verdict: 'passed', detail: `same ${shared.join(', ')}` }
        : { name: 'angle', verdict: 'inconclusive', detail: `only ${shared.join(', ')} read on both` };
    }
    return {
      name: 'angle',
      verdict: 'failed',
      reason: 'document_angle_mismatch',
      fields: mismatched,
      detail: `front and front_angle differ on ${mismatched.join(', ')}`,
    };
  }
  // No data on one of them: the perceptual distance is reported, not judged. Measured on the corpus it
  // does not separate (docs/documents.md "The angled front"): it says "same layout", not "same card".
  const distance =
    front.image_hash !== null && angled.image_hash !== null ? hashDistance(front.image_hash, angled.image_hash) : null;
  return {
    name: 'angle',
    verdict: 'inconclusive',
    detail: `no identifying field read on both; image hash distance ${distance === null ? 'unknown' : `${distance}/64`}`,
  };
}

/**
 * The checks over sides already read (`readSide` each, possibly in parallel in a worker pool). Pure
 * apart from nothing: no image work happens here.
 */
export function combineSides(read: readonly SideReading[], options: ReadDocumentOptions, ms = 0): DocumentReading {
  // A printed value that is a neighbouring field's, by the barcode or MRZ, was read off the next row.
  const machine = comparable(merge(read, true));
  const barcodeFields = read.find((side) => side.barcode_fields !== null)?.barcode_fields ?? null;
  const barcode = barcodeFields === null ? null : comparable(barcodeFields);
  const sides = read.map((side) =>
    side.printed === null
      ? side
      : {
          ...side,
          printed: namesSettledAgainst(
            { ...side.printed, fields: withoutMisplacedValues(side.printed.fields, machine) },
            side.mrz,
            machine,
            barcode,
          ),
        },
  );
  const fields = merge(sides);
  const detected = sides.map((side) => side.detected_type).find((type) => type !== null) ?? null;
  const docType = detected === null || detected === 'unsupported' ? (options.expectedType ?? null) : detected;
  fields.doc_type = docType;
  const checks: DocumentCheck[] = [];

  const anythingRead = sides.some(
    (side) =>
      side.barcode_fields !== null || side.mrz !== null || (side.printed !== null && Object.keys(side.printed.fields).length > 0),
  );
  checks.push(fromVerdict('readable', checkReadable(anythingRead ? comparable(fields) : null)));

  if (detected !== null) {
    const accepted =
      options.expectedType === undefined
        ? options.acceptedTypes
        : options.acceptedTypes.filter((type) => type === options.expectedType);
    checks.push(fromVerdict('document_type', checkDocumentType(detected, accepted)));
  }

  const wrongSides = sides.filter((side) => side.problems.includes('other_side'));
  checks.push(
    wrongSides.length === 0
      ? { name: 'side', verdict: 'passed' }
      : {
          name: 'side',
          verdict: 'failed',
          reason: 'document_type_mismatch',
          detail: wrongSides.map((side) => `${side.side} shows the ${side.detected_face ?? 'other side'}`).join('; '),
        },
  );

  checks.push(fromVerdict('expiry', checkExpiry(fields.expiry_date, options.today)));

  const mrzSide = sides.find((side) => side.mrz?.valid === true) ?? sides.find((side) => side.mrz !== null);
  if (mrzSide?.mrz != null) checks.push(fromVerdict('mrz', checkMrz(parseMrz(mrzSide.mrz.lines))));

  checks.push(
    fromVerdict('cuil', checkCuil(fields.cuil, { sex: fields.sex, number: fields.number }, { requirePrefixMatchingSex: true })),
  );

  // A front whose print a check needs was not read: the checks on it would pass on nothing. The flow asks
  // for the front again (`print_unreadable`) and reaches this only when a reading is judged as it is.
  const fronts = sides.filter((side) => side.side === 'front');
  const unsettled: FieldName[] = fronts.flatMap((side) => printUnsettled(side.printed));
  const unread = unsettled.length > 0 || fronts.some((side) => side.problems.includes('print_unreadable'));
  if (fronts.some((side) => side.printed !== null) || unread) {
    checks.push(
      !unread
        ? { name: 'print', verdict: 'passed' }
        : {
            name: 'print',
            verdict: 'failed',
            reason: 'document_unreadable',
            ...(unsettled.length === 0 ? {} : { fields: unsettled }),
            detail:
              unsettled.length === 0 ? "the front's printed labels were not read" : `printed ${unsettled.join(', ')} not read`,
          },
    );
  }

  // Invalid MRZs are left out: their own check already fails, and a misread would be reported twice.
  // The angled front is compared with the front by the angle check: a photo of another card is an
  // angle mismatch, not a disagreement inside one document.
  const sources: NamedSource[] = sides
    .filter((side) => side.side !== 'front_angle')
    .flatMap((side) => sourcesOf(side).filter((source) => !(source.name.startsWith('mrz:') && side.mrz?.valid !== true)));
  checks.push(fromVerdict('data_consistency', checkDataConsistency(sources, CROSS_CHECKED_FIELDS)));

  const angle = angleCheck(
    sides.find((side) => side.side === 'front'),
    sides.find((side) => side.side === 'front_angle'),
  );
  if (angle !== null) checks.push(angle);

  const screened = sides.filter((side) => side.quality.screen.detected);
  checks.push(
    screened.length > 0
      ? {
          name: 'screen',
          verdict: 'failed',
          reason: 'document_screen_detected',
          detail: `screen recapture on ${screened.map((side) => side.side).join(', ')}`,
        }
      : sides.every((side) => side.quality.assessed && side.quality.screen.judged)
        ? { name: 'screen', verdict: 'passed' }
        : {
            name: 'screen',
            verdict: 'inconclusive',
            detail: `too blurred to judge: ${sides
              .filter((side) => !(side.quality.assessed && side.quality.screen.judged))
              .map((side) => side.side)
              .join(', ')}`,
          },
  );

  const failed = new Set(
    checks.flatMap((check) => (check.verdict === 'failed' && check.reason !== undefined ? [check.reason] : [])),
  );
  const front = sides.find((side) => side.side === 'front' && side.face_crop !== null);
  return {
    doc_type: docType,
    fields,
    checks,
    reasons: DOCUMENT_REASON_CODES.filter((code) => failed.has(code)),
    sides: [...sides],
    face_crop: (front ?? sides.find((side) => side.face_crop !== null))?.face_crop ?? null,
    ms,
  };
}

export async function readDocument(
  sides: readonly { side: Side; image: PreparedImage | Buffer }[],
  options: ReadDocumentOptions,
): Promise<DocumentReading> {
  const started = Date.now();
  const readings: SideReading[] = [];
  // One after the other: within a thread the OCR worker and zxing run one job at a time anyway; a pool
  // reads sides in parallel by calling `readSide` per side and `combineSides` on the results.
  for (const { side, image } of sides) {
    readings.push(
      await readSide(image, {
        side,
        acceptedTypes: options.acceptedTypes,
        today: options.today,
        ...(options.work === undefined ? {} : { work: options.work }),
        ...(options.safetyCapMs === undefined ? {} : { safetyCapMs: options.safetyCapMs }),
      }),
    );
  }
  return combineSides(readings, options, Date.now() - started);
}
