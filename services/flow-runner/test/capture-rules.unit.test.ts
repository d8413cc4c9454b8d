import { DocumentStepSchema } from '@idv/contracts';
import { blankSideReading, zoneReading } from '@idv/verification';
import { captureProblems, toStoredReading, type StoredSideReading } from '../src/domain/capture-rules';
import { applyCaptureReading, documentTypeOf, offeredDocuments } from '../src/domain/steps/document';
import { type CaptureProblem } from '../src/domain/steps/document-state';
import type { StepState } from '../src/domain/steps/types';

/** A side's stored reading with nothing read and nothing wrong (a sharp photo), overridden per case. */
function reading(overrides: Partial<StoredSideReading> = {}): StoredSideReading {
  const blank = toStoredReading(blankSideReading('front'));
  return {
    ...blank,
    quality: {
      ...blank.quality,
      blur: 500,
      glare: 0,
      brightness: 128,
      screen: { score: 0.1, detected: false, judged: true, evidence: null },
      assessed: true,
    },
    ...overrides,
  };
}

const SCREEN = { score: 0.9, detected: true, judged: true, evidence: 'colour' as const };
const FIELDS = {
  doc_type: 'dni' as const,
  number: '30111222',
  surname: 'PÉREZ',
  given_names: 'ANA',
  sex: 'F' as const,
  birth_date: '1990-01-02',
  expiry_date: null,
  cuil: null,
  tramite: '00123456789',
  issuing_state: 'ARG',
  series: null,
  issue_date: null,
  nationality: null,
};

describe('which captures are taken', () => {
  test('when a photo of a screen could not be read, then the person is told it is a screen, before "no document"', () => {
    const screen = reading({
      quality: { ...reading().quality, screen: SCREEN },
      problems: ['barcode_not_found', 'mrz_not_found', 'no_document'],
    });

    expect(captureProblems(screen)[0]).toBe('screen');
  });

  test('when a photo of a screen was read all the same, then it is still refused as a screen', () => {
    const screen = reading({
      quality: { ...reading().quality, screen: SCREEN },
      barcode_fields: FIELDS,
      problems: ['mrz_not_found'],
    });

    expect(captureProblems(screen)).toEqual(['screen']);
  });

  test('when a sharp photo of the document was read, then a blur warning or a missing MRZ does not refuse it', () => {
    expect(captureProblems(reading({ barcode_fields: FIELDS, problems: ['blurry', 'mrz_not_found'] }))).toEqual([]);
  });

  test('when nothing was read, then the photo problems come first, and "no document" when there are none', () => {
    expect(captureProblems(reading({ problems: ['barcode_not_found', 'glare'] }))).toEqual(['glare', 'barcode_not_found']);
    expect(captureProblems(reading())).toEqual(['no_document']);
  });
});

describe('a passport data page', () => {
  const PASSPORT_FIELDS = { ...FIELDS, doc_type: 'passport' as const, number: 'AAB058028', tramite: null };
  const zone = (overrides: Partial<NonNullable<StoredSideReading['mrz']>> = {}): NonNullable<StoredSideReading['mrz']> =>
    zoneReading({
      lines: ['P<ARGPEREZ<<ANA<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<', 'AAB0580288ARG9001022F3212183<<<<<<<<<<<<<<08'],
      format: 'TD3',
      name_confidence: 85,
      ...overrides,
    });
  const page = (mrz: NonNullable<StoredSideReading['mrz']>, problems: StoredSideReading['problems'] = ['barcode_not_found']) =>
    reading({
      detected_type: 'passport',
      detected_face: 'data_page',
      mrz,
      mrz_fields: mrz.names_withheld ? { ...PASSPORT_FIELDS, surname: null, given_names: null } : PASSPORT_FIELDS,
      problems,
    });

  /** What the person who chose a passport is told of a refused photo with these problems. */
  const hintOf = (problems: CaptureProblem[]) => {
    const step = DocumentStepSchema.parse({ id: 'doc', type: 'document_ar', documents: ['passport'], maxAttempts: 3 });
    const state: StepState = {
      status: 'pending',
      document: { type: 'passport', captures: { front: { artefactId: 'art_h', status: 'reading', attempts: 1 } } },
    };
    applyCaptureReading(step, state, 'art_h', problems);
    return state.document?.captures.front?.problem;
  };

  test('when its zone was read with its names, then it is taken', () => {
    expect(captureProblems(page(zone()))).toEqual([]);
  });

  test('when its names were withheld, then it is taken again, the zone named and not a barcode it has none of', () => {
    const withheld = captureProblems(page(zone({ names_withheld: true, names_second_read: 'disagreed' })));
    expect(withheld).not.toEqual([]);
    expect(hintOf(withheld)).toBe('mrz_not_found');
    expect(hintOf(captureProblems(page(zone({ names_withheld: true }), ['blurry', 'barcode_not_found'])))).toBe('blurry');
  });

  test('when its zone fails its checks through a blurred photo, then it is taken again; in a sharp photo, it is judged', () => {
    const invalid = zone({ valid: false, names_second_read: null });

    expect(hintOf(captureProblems(page(invalid, ['blurry', 'barcode_not_found'])))).toBe('blurry');
    expect(captureProblems(page(invalid))).toEqual([]);
  });

  test('when blur made a passport zone into an invalid TD2 of no known state, then it is taken again too', () => {
    // s99-000014: `ARGGOHEZ<PENALOZA…` read as a TD2, no document type; it was rejected at once.
    const misread = reading({
      detected_type: null,
      mrz: zone({ format: 'TD2', valid: false, names_second_read: null }),
      mrz_fields: PASSPORT_FIELDS,
      problems: ['blurry', 'barcode_not_found'],
    });

    expect(captureProblems(misread)[0]).toBe('blurry');
  });

  test('when a zone that says no document type fails its checks in a sharp photo, then it is taken again, the zone named', () => {
    // s7-000036: glare over the names line only, too small for the photo's glare measure; the zone read
    // as a TD2 starting `ARGAGUIRRE` (its `P<` lost) and the passport was rejected at once.
    const misread = reading({
      detected_type: null,
      mrz: zone({ format: 'TD2', valid: false, names_second_read: null }),
      mrz_fields: PASSPORT_FIELDS,
      problems: ['barcode_not_found'],
    });

    const problems = captureProblems(misread);
    expect(problems).not.toEqual([]);
    expect(hintOf(problems)).toBe('mrz_not_found');
  });

  test('when a side was identified by its barcode, then its zone does not matter', () => {
    const card = reading({
      detected_type: 'dni',
      barcode_fields: FIELDS,
      mrz: zone({ format: 'TD1', valid: false, names_second_read: null }),
      mrz_fields: FIELDS,
      problems: ['blurry'],
    });

    expect(captureProblems(card)).toEqual([]);
  });

  test('when the passport is the only document the step offers, so none was chosen, then the hint is its zone too', () => {
    const step = DocumentStepSchema.parse({ id: 'doc', type: 'document_ar', documents: ['passport'], maxAttempts: 3 });
    const state: StepState = {
      status: 'pending',
      document: { captures: { front: { artefactId: 'art_4', status: 'reading', attempts: 1 } } },
    };

    applyCaptureReading(step, state, 'art_4', ['barcode_not_found', 'mrz_not_found']);
    expect(state.document?.captures.front?.problem).toBe('mrz_not_found');
  });

  test('when nothing was read on a photo sent for a passport, then the hint is its zone, not a barcode', () => {
    const step = DocumentStepSchema.parse({ id: 'doc', type: 'document_ar', documents: ['passport'], maxAttempts: 3 });
    const state: StepState = {
      status: 'pending',
      document: { type: 'passport', captures: { front: { artefactId: 'art_3', status: 'reading', attempts: 1 } } },
    };

    expect(applyCaptureReading(step, state, 'art_3', ['barcode_not_found', 'mrz_not_found'])).toEqual({ kind: 'stay' });
    expect(state.document?.captures.front?.problem).toBe('mrz_not_found');
  });

  test('when its names are still withheld at the last attempt, then the step fails as document_unreadable', () => {
    const step = DocumentStepSchema.parse({ id: 'doc', type: 'document_ar', documents: ['passport'], maxAttempts: 2 });
    const state: StepState = {
      status: 'pending',
      document: { type: 'passport', captures: { front: { artefactId: 'art_2', status: 'reading', attempts: 2 } } },
    };
    const problems = captureProblems(page(zone({ names_withheld: true })));

    expect(applyCaptureReading(step, state, 'art_2', problems)).toEqual({ kind: 'failed', reason: 'document_unreadable' });
  });
});

describe("a DNI back's zone that fails its checks", () => {
  const back = (firstLine: string) =>
    reading({
      side: 'back',
      detected_type: 'dni',
      detected_face: 'back',
      problems: ['barcode_not_found'],
      mrz: zoneReading({
        lines: [firstLine, '0602183X3808207ARG<<<<<<<<<<<4', 'DE<LA<FUENTE<HERRERA<<ROMAN<CR'],
        format: 'TD1',
        valid: false,
        check_digits: { document_number: false, birth_date: true, expiry_date: true, composite: false },
      }),
      mrz_fields: { ...FIELDS, number: '50837982' },
    });

  test('when its number has a letter in a sharp photo (s99-000071: a glare beside the zone), then it is taken again', () => {
    expect(captureProblems(back('IDARG5U137982<6<<<<<<<<<<<<<<<'))).not.toEqual([]);
  });

  test('when its number is digits, then a wrong check digit is judged as printed, not asked again', () => {
    expect(captureProblems(back('IDARG50837982<7<<<<<<<<<<<<<<<'))).toEqual([]);
  });
});

describe('a side refused as a screen', () => {
  const step = DocumentStepSchema.parse({ id: 'doc', type: 'document_ar', documents: ['dni'], maxAttempts: 2 });
  const stateWith = (attempts: number): StepState => ({
    status: 'pending',
    document: { type: 'dni', captures: { front: { artefactId: 'art_1', status: 'reading', attempts } } },
  });

  test('when attempts remain, then the person may try again', () => {
    expect(applyCaptureReading(step, stateWith(1), 'art_1', ['screen'])).toEqual({ kind: 'stay' });
  });

  test('when the attempts run out on a screen, then the step fails with document_screen_detected', () => {
    expect(applyCaptureReading(step, stateWith(2), 'art_1', ['screen'])).toEqual({
      kind: 'failed',
      reason: 'document_screen_detected',
    });
  });
});

describe('a front whose printed data could not be read', () => {
  const step = DocumentStepSchema.parse({ id: 'doc', type: 'document_ar', documents: ['dni'], maxAttempts: 2 });
  const stateWith = (attempts: number): StepState => ({
    status: 'pending',
    document: { type: 'dni', captures: { front: { artefactId: 'art_1', status: 'reading', attempts } } },
  });
  const front = reading({ barcode_fields: FIELDS, problems: ['mrz_not_found', 'print_unreadable'] });

  test('when its barcode was read but not the print a check needs, then it is taken again, told why', () => {
    expect(captureProblems(front)).toEqual(['print_unreadable']);
    expect(applyCaptureReading(step, stateWith(1), 'art_1', captureProblems(front))).toEqual({ kind: 'stay' });
  });

  test('when its print is still unread at the last attempt, then the step fails as document_unreadable, never passes', () => {
    expect(applyCaptureReading(step, stateWith(2), 'art_1', captureProblems(front))).toEqual({
      kind: 'failed',
      reason: 'document_unreadable',
    });
  });
});

describe('the document types offered to the person', () => {
  const stepWith = (documents?: string[]) =>
    DocumentStepSchema.parse({ id: 'doc', type: 'document_ar', ...(documents ? { documents } : {}) });

  test('when the step allows every type, then a licence, which cannot be verified yet, is not offered', () => {
    expect(offeredDocuments(stepWith())).toEqual(['dni', 'passport']);
  });

  test('when a licence is the only other type, then the person goes straight to the one left', () => {
    const step = stepWith(['dni', 'licence']);

    expect(offeredDocuments(step)).toEqual(['dni']);
    expect(documentTypeOf(step, { captures: {} })).toBe('dni');
  });

  test('when the step allows a licence alone, then it is what is asked for', () => {
    expect(documentTypeOf(stepWith(['licence']), { captures: {} })).toBe('licence');
  });
});
