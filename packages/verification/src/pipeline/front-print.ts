import { createHash } from 'node:crypto';
import type { DocumentFields } from '../model';
import { PRINT_NEEDED, type PrintedFieldName, type PrintedLayout, type PrintedStatus } from '../readers/printed.reader';
import { printUnsettled, type SideReading } from './read-side';

/**
 * What the photos of one card's front settled of its needed print between them, kept across the
 * front's retakes: a dim or glared front may show the names on one photo and the expiry on the next
 * (s99-000004, low light: the names on the second and third photos, the expiry on the first and
 * second, never all on one). Only photos of the same card pool what they read: its barcode's payload
 * (the 2012+ front) or its valid zone (the 2009 front), as a digest, names the card. Only settled fields are kept (`agrees`, `read`): a field that differs
 * ends the reading as it is and is never carried, so pooling can fill a gap but never hide a
 * disagreement: an altered name settled on any photo is a `differs` on that photo.
 */
export interface SettledPrint {
  card: string;
  layout: PrintedLayout;
  fields: Partial<DocumentFields>;
  status: Partial<Record<PrintedFieldName, Extract<PrintedStatus, 'agrees' | 'read'>>>;
}

type FrontReading = Pick<SideReading, 'side' | 'barcode' | 'mrz' | 'printed' | 'problems'>;

/** What names the card a front shows, as a digest: its barcode's payload, or its zone where the zone holds. */
function cardOf(front: FrontReading): string | null {
  const payload = front.barcode?.text ?? (front.mrz?.valid === true ? front.mrz.lines.join('\n') : null);
  return payload === null ? null : createHash('sha256').update(payload).digest('hex');
}

/** The front's card and needed fields, when the front is one whose print can be pooled. */
function poolable(front: FrontReading): { card: string; printed: NonNullable<FrontReading['printed']> } | null {
  const card = front.side === 'front' ? cardOf(front) : null;
  if (card === null || front.printed === null || PRINT_NEEDED[front.printed.layout] === undefined) return null;
  return { card, printed: front.printed };
}

const samePrint = (settled: SettledPrint | null, card: string, layout: PrintedLayout): settled is SettledPrint =>
  settled !== null && settled.card === card && settled.layout === layout;

/**
 * What a front refused for its print adds to what its earlier photos settled: the needed fields it
 * settled (its own reads winning), over those of earlier photos of the same card. Null for a front
 * with nothing to pool (no barcode, no print of a layout with needed fields).
 */
export function settledPrintOf(front: FrontReading, earlier: SettledPrint | null): SettledPrint | null {
  const own = poolable(front);
  if (own === null) return null;
  const { card, printed } = own;
  const base = samePrint(earlier, card, printed.layout) ? earlier : { card, layout: printed.layout, fields: {}, status: {} };
  const fields: Partial<DocumentFields> = { ...base.fields };
  const status: SettledPrint['status'] = { ...base.status };
  for (const field of PRINT_NEEDED[printed.layout]!) {
    const settled = printed.status[field];
    const value = printed.fields[field];
    if ((settled !== 'agrees' && settled !== 'read') || value === undefined || value === null) continue;
    (fields as Record<string, unknown>)[field] = value;
    status[field] = settled;
  }
  return { card, layout: printed.layout, fields, status };
}

/**
 * A front refused only because needed print was not settled, with the gaps filled from what earlier
 * photos of the same card settled; taken (`print_unreadable` dropped) once nothing needed is missing.
 * Any other front is given back as it is: one whose needed print differs, whose labels were not found
 * at all, or of another card.
 */
export function withSettledPrint<T extends FrontReading>(front: T, earlier: SettledPrint | null): T {
  const own = poolable(front);
  if (own === null || !samePrint(earlier, own.card, own.printed.layout)) return front;
  if (!front.problems.includes('print_unreadable')) return front;
  const unsettled = printUnsettled(own.printed);
  const filled = unsettled.filter((field) => earlier.status[field] !== undefined);
  if (filled.length === 0) return front;
  const fields: Partial<DocumentFields> = { ...own.printed.fields };
  const status = { ...own.printed.status };
  for (const field of filled) {
    (fields as Record<string, unknown>)[field] = earlier.fields[field];
    status[field] = earlier.status[field];
  }
  const printed = { ...own.printed, fields, status };
  const settled = printUnsettled(printed).length === 0;
  return {
    ...front,
    printed,
    problems: settled ? front.problems.filter((problem) => problem !== 'print_unreadable') : front.problems,
  };
}
