import { derivedArtefactId } from '@idv/contracts';
import { judgeAngledFront, type SideReading } from '@idv/verification';
import type { CaptureProblem, CaptureVerdict } from './steps/document-state';

/**
 * A side's reading as kept in the database: everything but the image bytes. The face crop (the
 * document's portrait) is an artefact of its own, `document_portrait`, encrypted like the capture and
 * under the same retention, at `portraitIdOf(capture)`; `has_face_crop` says whether there is one.
 */
export type StoredSideReading = Omit<SideReading, 'face_crop'> & { has_face_crop: boolean };

/** The portrait's artefact id, derived from its front's: a re-read replaces the same row, never adds one. */
export const portraitIdOf = (frontArtefactId: string) => derivedArtefactId(frontArtefactId, 'portrait');

export function toStoredReading(reading: SideReading): StoredSideReading {
  const { face_crop: faceCrop, ...rest } = reading;
  return { ...rest, has_face_crop: faceCrop !== null };
}

/**
 * Problems that mean the photo shows something else: told first, whatever else is wrong. A screen or a
 * printed copy is one of them: the person gets another attempt (a false alarm costs a retake, not the
 * verification), and a side that is still a recapture when its attempts run out fails the step with
 * `document_screen_detected`.
 */
const WRONG_THING: readonly CaptureProblem[] = ['screen', 'wrong_type', 'other_side', 'no_document', 'unreadable_image'];
/** Problems of the photo itself: they matter only when nothing could be read through them. */
const PHOTO_QUALITY: readonly CaptureProblem[] = ['blurry', 'glare', 'too_dark'];

/**
 * Whether a side is good enough to go on with, and if not what the person should change. A side is
 * taken when what identifies the document on it was read (barcode or MRZ, or for the angled front
 * anything at all), even if the photo is not perfect.
 */
export function captureProblems(reading: StoredSideReading): CaptureProblem[] {
  const problems = [...(reading.problems as CaptureProblem[]), ...(reading.quality.screen.detected ? (['screen'] as const) : [])];
  const wrong = WRONG_THING.filter((problem) => problems.includes(problem));
  if (wrong.length > 0) return wrong;
  const identified =
    reading.barcode_fields !== null ||
    (reading.mrz_fields !== null && !zoneToRetake(reading)) ||
    (reading.side === 'front_angle' && reading.printed !== null && Object.keys(reading.printed.fields).length > 0);
  // Identified, but the printed data a check needs (the 2012+ front's expiry, the names and number the
  // data consistency compares with the barcode or MRZ) was not read: the front is taken again rather than
  // judged on what was not read, and after the attempts the step fails as `document_unreadable`.
  if (identified) return problems.includes('print_unreadable') ? ['print_unreadable'] : [];
  const quality = PHOTO_QUALITY.filter((problem) => problems.includes(problem));
  const rest = problems.filter((problem) => !PHOTO_QUALITY.includes(problem));
  const ordered = [...quality, ...rest];
  return ordered.length > 0 ? ordered : ['no_document'];
}

/** A side's verdict for the flow: its problems and the type of document it showed. */
export function captureVerdict(reading: StoredSideReading): CaptureVerdict {
  return { problems: captureProblems(reading), detectedType: reading.detected_type };
}

/**
 * The document number a side says for certain: its barcode's, or its MRZ's when the number's own check
 * digit or the composite one (which covers the number as printed) holds: a misread digit must not make
 * the card another one. The 2009 specimen's zone has a number whose own check digit fails as printed and
 * a composite that holds. Digits only, without leading zeros.
 */
function certainNumber(reading: StoredSideReading): string | null {
  const checks = reading.mrz?.check_digits;
  const number =
    reading.barcode_fields?.number ??
    (checks?.document_number === true || checks?.composite === true ? (reading.mrz_fields?.number ?? null) : null);
  if (number === null) return null;
  const digits = number.replace(/\D/g, '').replace(/^0+/, '');
  return digits === '' ? null : digits;
}

/**
 * What a side read after the front says against the accepted front. The angled front must show the card
 * at another angle (`judgeAngledFront`: not a copy of the front's photo, and its outline changed where
 * both outlines show); a back must carry the front's number where both say it for certain: a back of
 * another card (another DNI, an older card's front with its zone) is that, whatever else its photo shows.
 * A back whose zone fails its checks and says another number than the front's certain one was misread
 * (s99-000071: a glare over the zone read `5064382` for 50837982), so it is taken again (`mrz_not_found`)
 * rather than judged: a zone printed with a wrong check digit still says the front's number, and is judged.
 */
export function problemsAgainstFront(
  front: StoredSideReading,
  side: StoredSideReading,
  kind: 'back' | 'front_angle',
): CaptureProblem[] {
  if (kind === 'front_angle') {
    const seen = judgeAngledFront(front, side);
    return seen.verdict === 'copy' || seen.verdict === 'not_tilted' ? ['not_tilted'] : [];
  }
  const expected = certainNumber(front);
  const shown = certainNumber(side);
  if (expected !== null && shown !== null && expected !== shown) return ['other_document'];
  return expected !== null && shown === null && zoneSaysAnotherNumber(side, expected) ? ['mrz_not_found'] : [];
}

/** A zone read without a barcode beside it, failing its checks, whose number is not `expected` (digits, no leading zeros). */
function zoneSaysAnotherNumber(side: StoredSideReading, expected: string): boolean {
  if (side.barcode_fields !== null || side.mrz === null || side.mrz.valid) return false;
  const number = (side.mrz_fields?.number ?? '').replace(/\D/g, '').replace(/^0+/, '');
  return number !== expected;
}

/**
 * A side identified by its MRZ alone (no barcode read) whose zone says more about the photo than about
 * the document is taken again: a zone failing its check digits in a blurred, glared or dark photo (a TD3
 * read as a TD2 when blur ate the start of its lines), a zone failing its checks that does not even say
 * which document it is (no document code read: s7-000036, a passport whose names line lay under a glare
 * too small for the photo's glare measure, read as a TD2 starting `ARGAGUIRRE`), or a passport's zone
 * read without its names (withheld: read too uncertainly; a passport has nothing else that names its
 * holder). The step then fails as `document_unreadable` only once the attempts run out. A zone of a
 * known document that fails its checks in a good photo is judged as it is (`document_mrz_invalid`): a
 * wrong check digit printed reads the same on a retake.
 */
function zoneToRetake(reading: StoredSideReading): boolean {
  if (reading.mrz === null || reading.barcode_fields !== null) return false;
  if (reading.detected_type === 'passport' && reading.mrz.names_withheld) return true;
  if (reading.mrz.valid) return false;
  return (
    reading.detected_type === null ||
    misreadDniNumber(reading.mrz.lines) ||
    PHOTO_QUALITY.some((problem) => (reading.problems as CaptureProblem[]).includes(problem))
  );
}

/**
 * An Argentine DNI's zone whose document number is not digits was misread, not printed wrong: the number
 * is the DNI's, digits only, so a letter in it (s99-000071, a glare beside the zone: `5U137982` for
 * 50837982, both check digits failing) is the OCR's. A zone printed with a wrong check digit keeps a number
 * of digits and is still judged (`document_mrz_invalid`).
 */
function misreadDniNumber(lines: readonly string[]): boolean {
  const first = lines[0] ?? '';
  return first.startsWith('IDARG') && !/^[0-9<]{9}$/.test(first.slice(5, 14));
}

/** Argentina's calendar day: document expiry is judged on the holder's date, not UTC's. */
export function todayInArgentina(now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' }).format(now);
}
