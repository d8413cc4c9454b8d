import { readFile } from 'node:fs/promises';
import {
  DOCUMENT_TYPES,
  SIDES,
  combineSides,
  readSide,
  stopEngines,
  type DocumentReading,
  type DocumentType,
  type Side,
  type SideReading,
} from '@idv/verification/tooling';

/**
 * `document:read`: the service's own pipeline on image files, offline, with no stack running (it never
 * touches the ops HTTP client). Support staff use it to answer "why was this rejected?", the benchmarks
 * to measure what the service does.
 *
 * Files are named `side=path` (`front=a.jpg back=b.jpg front_angle=c.jpg`) or given bare; a bare file is
 * a `front` when read alone, and with `--document` the bare files take the sides in the order front,
 * back, front_angle. Without `--document` each file is a document of its own (one side, its own checks):
 * one line of output per file. With `--document` the files are the sides of one document and the
 * output is one line for that document, with its cross-checks and a `sides` entry per file.
 */
export const DOCUMENT_READ_USAGE = `  document:read FILE... [--document] [--today YYYY-MM-DD] [--types dni,passport,licence] [--expect TYPE] [--json]
      FILE is path or side=path (side: front, back, front_angle); runs offline, no stack needed`;

export class DocumentReadUsageError extends Error {}

const REPORTED_FIELDS = [
  'doc_type',
  'number',
  'surname',
  'given_names',
  'sex',
  'birth_date',
  'expiry_date',
  'cuil',
  'tramite',
  'issuing_state',
] as const;

export interface DocumentReadOptions {
  files: string[];
  document: boolean;
  today?: string;
  types?: string;
  expect?: string;
}

function todayInArgentina(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' }).format(new Date());
}

function parseTypes(value: string | undefined): DocumentType[] {
  if (value === undefined) return [...DOCUMENT_TYPES];
  const types = value.split(',').map((type) => type.trim());
  const unknown = types.filter((type) => !(DOCUMENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0) throw new DocumentReadUsageError(`unknown document type(s): ${unknown.join(', ')}`);
  return types as DocumentType[];
}

function parseExpected(value: string | undefined): DocumentType | undefined {
  if (value === undefined) return undefined;
  if (!(DOCUMENT_TYPES as readonly string[]).includes(value))
    throw new DocumentReadUsageError(`--expect must be one of ${DOCUMENT_TYPES.join(', ')}`);
  return value as DocumentType;
}

interface NamedFile {
  side: Side;
  path: string;
}

export function namedFiles(files: readonly string[], asDocument: boolean): NamedFile[] {
  const order: readonly Side[] = ['front', 'back', 'front_angle'];
  let next = 0;
  return files.map((argument) => {
    const match = /^(front|back|front_angle)=(.+)$/.exec(argument);
    if (match !== null) return { side: match[1] as Side, path: match[2] ?? '' };
    if (!asDocument) return { side: 'front', path: argument };
    const side = order[next];
    next += 1;
    if (side === undefined)
      throw new DocumentReadUsageError(`more than ${order.length} unnamed files; name them side=path (${SIDES.join(', ')})`);
    return { side, path: argument };
  });
}

function sideSummary(file: string, reading: SideReading) {
  return {
    file,
    side: reading.side,
    detected_type: reading.detected_type,
    detected_face: reading.detected_face,
    barcode:
      reading.barcode === null
        ? null
        : {
            format: reading.barcode.format,
            text: reading.barcode.text,
            layout: reading.barcode.layout,
            bytes_base64: reading.barcode.bytes_base64,
          },
    mrz:
      reading.mrz === null
        ? null
        : {
            format: reading.mrz.format,
            lines: reading.mrz.lines,
            valid: reading.mrz.valid,
            check_digits: reading.mrz.check_digits,
          },
    printed: reading.printed?.fields ?? null,
    quality: reading.quality,
    problems: reading.problems,
    refusal: reading.refusal,
    face_crop_bytes: reading.face_crop?.length ?? 0,
    timings: reading.timings,
    ms: reading.ms,
  };
}

function documentSummary(reading: DocumentReading) {
  const fields: Record<string, string | null> = {};
  for (const field of REPORTED_FIELDS) fields[field] = reading.fields[field];
  return {
    doc_type: reading.doc_type,
    fields,
    checks: reading.checks,
    reasons: reading.reasons,
  };
}

export type DocumentReadLine = Record<string, unknown>;

/** Reads the files and returns the output lines (objects); the caller prints them. */
export async function documentRead(options: DocumentReadOptions): Promise<DocumentReadLine[]> {
  if (options.files.length === 0) throw new DocumentReadUsageError('document:read takes at least one file');
  const today = options.today ?? todayInArgentina();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(today)) throw new DocumentReadUsageError('--today must be YYYY-MM-DD');
  const acceptedTypes = parseTypes(options.types);
  const expectedType = parseExpected(options.expect);
  const files = namedFiles(options.files, options.document);
  const base = { acceptedTypes, today, ...(expectedType === undefined ? {} : { expectedType }) };
  try {
    const lines: DocumentReadLine[] = [];
    const readings: { file: string; reading: SideReading }[] = [];
    for (const file of files) {
      let bytes: Buffer;
      try {
        bytes = await readFile(file.path);
      } catch (error) {
        throw new DocumentReadUsageError(`cannot read ${file.path}: ${(error as Error).message}`);
      }
      const reading = await readSide(bytes, { side: file.side, acceptedTypes, today });
      if (options.document) {
        readings.push({ file: file.path, reading });
        continue;
      }
      const document = combineSides([reading], base, reading.ms);
      lines.push({ ...sideSummary(file.path, reading), ...documentSummary(document) });
    }
    if (options.document) {
      const document = combineSides(
        readings.map(({ reading }) => reading),
        base,
        readings.reduce((sum, { reading }) => sum + reading.ms, 0),
      );
      lines.push({
        ...documentSummary(document),
        sides: readings.map(({ file, reading }) => sideSummary(file, reading)),
        ms: document.ms,
      });
    }
    return lines;
  } finally {
    await stopEngines();
  }
}

/** The human-readable form of one output line. */
export function formatDocumentLine(line: DocumentReadLine): string {
  const out: string[] = [];
  const sides = Array.isArray(line.sides) ? (line.sides as Record<string, unknown>[]) : [line];
  for (const side of sides) {
    out.push(
      `${String(side.file)} (${String(side.side)}): ${(side.detected_type as string | null) ?? 'unknown type'}, ${(side.detected_face as string | null) ?? 'unknown face'}`,
    );
    const barcode = side.barcode as { format: string; text: string; layout: string | null } | null;
    out.push(
      `  barcode: ${barcode === null ? 'none' : `${barcode.format} ${barcode.layout ?? ''} ${JSON.stringify(barcode.text)}`}`,
    );
    const mrz = side.mrz as { lines: string[]; valid: boolean } | null;
    out.push(`  mrz: ${mrz === null ? 'none' : `${mrz.valid ? 'valid' : 'INVALID'}`}`);
    for (const mrzLine of mrz?.lines ?? []) out.push(`    ${mrzLine}`);
    const problems = side.problems as string[];
    if (problems.length > 0) out.push(`  problems: ${problems.join(', ')}`);
    out.push(`  ${String(side.ms)} ms`);
  }
  out.push(`document: ${(line.doc_type as string | null) ?? 'unknown'}`);
  for (const [field, value] of Object.entries(line.fields as Record<string, string | null>))
    out.push(`  ${field}: ${value ?? '-'}`);
  for (const check of line.checks as { name: string; verdict: string; reason?: string; detail?: string }[]) {
    out.push(
      `  check ${check.name}: ${check.verdict}${check.reason === undefined ? '' : ` (${check.reason})`}${check.detail === undefined ? '' : ` ${check.detail}`}`,
    );
  }
  const reasons = line.reasons as string[];
  out.push(`reasons: ${reasons.length === 0 ? 'none' : reasons.join(', ')}`);
  return out.join('\n');
}
