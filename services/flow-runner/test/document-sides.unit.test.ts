import { DocumentStepSchema } from '@idv/contracts';
import { blankSideReading, zoneReading, type CardOutline } from '@idv/verification';
import { problemsAgainstFront, toStoredReading, type StoredSideReading } from '../src/domain/capture-rules';
import { messages } from '../src/domain/i18n';
import {
  MAX_TYPE_CHANGES,
  applyCaptureReading,
  documentStep,
  problemOfType,
  reasonOfProblem,
} from '../src/domain/steps/document';
import { type DocumentProgress } from '../src/domain/steps/document-state';
import type { StepContext, StepState } from '../src/domain/steps/types';

/** A side's stored reading with nothing read, overridden per case. */
function reading(side: 'front' | 'back' | 'front_angle', overrides: Partial<StoredSideReading> = {}): StoredSideReading {
  return { ...toStoredReading(blankSideReading(side)), ...overrides };
}

const stepOf = (documents: string[], maxAttempts = 3) =>
  DocumentStepSchema.parse({ id: 'doc', type: 'document_ar', documents, maxAttempts });

const FIELDS = {
  doc_type: 'dni' as const,
  number: '30111222',
  surname: 'PEREZ',
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

/** A TD1 zone read on a back, the check digits that cover its number (its own, the composite) holding or not. */
function zone(number: string, numberCheckHolds: boolean, compositeHolds = numberCheckHolds): Partial<StoredSideReading> {
  return {
    detected_type: 'dni',
    mrz: zoneReading({ valid: false, check_digits: { document_number: numberCheckHolds, composite: compositeHolds } }),
    mrz_fields: { ...FIELDS, number },
  };
}

const outline = (corners: [number, number][]): CardOutline => ({
  corners: corners.map(([x, y]) => ({ x, y })) as CardOutline['corners'],
  support: 1,
});
const FLAT = outline([
  [100, 100],
  [956, 100],
  [956, 640],
  [100, 640],
]);
// The same card turned about its vertical axis: its far side shorter.
const TILTED = outline([
  [120, 90],
  [860, 150],
  [860, 590],
  [120, 650],
]);

describe('a side against the type the person chose', () => {
  test('when a passport page is read for the DNI on a step that also offers passports, then the person may switch to passport', () => {
    expect(problemOfType(stepOf(['dni', 'passport']), { type: 'dni', captures: {} }, 'passport')).toBe('looks_like_passport');
  });

  test('when the step offers only DNIs, then a passport page is the wrong document', () => {
    expect(problemOfType(stepOf(['dni']), { captures: {} }, 'passport')).toBe('wrong_type');
  });

  test('when the person already changed the type as often as they may, then another type is the wrong document', () => {
    const progress: DocumentProgress = { type: 'dni', captures: {}, typeChanges: MAX_TYPE_CHANGES };

    expect(problemOfType(stepOf(['dni', 'passport']), progress, 'passport')).toBe('wrong_type');
  });

  test('when the side is of the chosen type, or of none the readers could tell, then nothing is said of its type', () => {
    const progress: DocumentProgress = { type: 'dni', captures: {} };

    expect(problemOfType(stepOf(['dni', 'passport']), progress, 'dni')).toBeNull();
    expect(problemOfType(stepOf(['dni', 'passport']), progress, null)).toBeNull();
  });

  test('when the last attempt still shows another type, then the step fails with document_type_mismatch', () => {
    const state: StepState = {
      status: 'pending',
      document: { type: 'dni', captures: { front: { artefactId: 'art_1', status: 'reading', attempts: 3 } } },
    };

    expect(applyCaptureReading(stepOf(['dni', 'passport']), state, 'art_1', ['looks_like_passport'])).toEqual({
      kind: 'failed',
      reason: 'document_type_mismatch',
    });
  });
});

describe('changing the document type', () => {
  const step = stepOf(['dni', 'passport']);
  const change = (state: StepState, type?: string) =>
    documentStep.accept({ step, state, t: messages('es'), mode: 'test' } as unknown as StepContext<typeof step>, {
      action: 'change_type',
      ...(type ? { type } : {}),
    });

  test('when the person switches to the type a side looked like, then the sides start again for it, as often as allowed', async () => {
    const state: StepState = {
      status: 'pending',
      document: {
        type: 'dni',
        captures: { front: { artefactId: 'art_1', status: 'refused', attempts: 2, problem: 'looks_like_passport' } },
      },
    };

    await change(state, 'passport');
    expect(state.document).toEqual({ type: 'passport', captures: {}, typeChanges: 1 });
    await change(state);
    expect(state.document).toEqual({ captures: {}, typeChanges: 2 });
    state.document!.type = 'dni';
    await change(state, 'passport');
    expect(state.document).toEqual({ type: 'dni', captures: {}, typeChanges: MAX_TYPE_CHANGES });
  });
});

describe("a front's retake", () => {
  test('when the front was refused for its print, then its next photo keeps what the earlier ones settled, to pool with it', async () => {
    const step = stepOf(['dni']);
    const settledPrint = {
      card: 'c0ffee',
      layout: 'dni_2012_front' as const,
      fields: { surname: 'PEREZ' },
      status: { surname: 'agrees' as const },
    };
    const state: StepState = {
      status: 'pending',
      document: {
        captures: { front: { artefactId: 'art_1', status: 'refused', attempts: 1, problem: 'print_unreadable', settledPrint } },
      },
    };
    const ports = {
      prepareCapture: (bytes: Buffer) => Promise.resolve({ ok: true, jpeg: bytes }),
      isTestSample: () => Promise.resolve(false),
      stageCapture: () => 'art_2',
    };
    const ctx = { step, state, t: messages('es'), mode: 'live', upload: Buffer.from('photo'), ports };

    await documentStep.accept(ctx as unknown as StepContext<typeof step>, { action: 'upload', side: 'front' });

    expect(state.document!.captures.front).toEqual({ artefactId: 'art_2', status: 'reading', attempts: 2, settledPrint });
  });
});

describe('the angled front against the front', () => {
  test('when the angled front is the front photo again, then it is refused as not tilted', () => {
    const front = reading('front', { image_signature: 'AAECAwQFBgcICQoLDA0ODw==', barcode_fields: FIELDS });
    const again = reading('front_angle', { image_signature: 'AAECAwQFBgcICQoLDA0ODw==', barcode_fields: FIELDS });

    expect(problemsAgainstFront(front, again, 'front_angle')).toEqual(['not_tilted']);
    expect(reasonOfProblem('not_tilted')).toBe('document_angle_mismatch');
  });

  test('when the card outline has the same shape on both photos, then it is refused; when it narrows, it is taken', () => {
    const front = reading('front', { card_outline: FLAT });

    expect(problemsAgainstFront(front, reading('front_angle', { card_outline: FLAT }), 'front_angle')).toEqual(['not_tilted']);
    expect(problemsAgainstFront(front, reading('front_angle', { card_outline: TILTED }), 'front_angle')).toEqual([]);
    // No outline on the angled photo: only a copy could be told, and this is none.
    expect(problemsAgainstFront(front, reading('front_angle'), 'front_angle')).toEqual([]);
  });
});

describe('the back against the front', () => {
  const front = reading('front', { detected_type: 'dni', barcode_fields: FIELDS });

  test('when the back carries another number, a check digit over it holding, then it is the back of another document', () => {
    expect(problemsAgainstFront(front, reading('back', zone('30111227', true)), 'back')).toEqual(['other_document']);
    // The 2009 specimen's zone: its number's own check digit fails as printed, the composite holds.
    expect(problemsAgainstFront(front, reading('back', zone('999999972', false, true)), 'back')).toEqual(['other_document']);
    expect(reasonOfProblem('other_document')).toBe('document_data_mismatch');
  });

  test('when the back carries the front number, even in a zone failing its checks, then it says nothing against the front', () => {
    expect(problemsAgainstFront(front, reading('back', zone('30111222', true)), 'back')).toEqual([]);
    // A wrong check digit as printed keeps the number: judged by the document's checks, not taken again.
    expect(problemsAgainstFront(front, reading('back', zone('30111222', false)), 'back')).toEqual([]);
  });

  test('when the back says another number that no check digit vouches for, then its zone was misread and it is asked again', () => {
    // s99-000071: a glare over the zone read 5064382 for 50837982, both check digits failing.
    expect(problemsAgainstFront(front, reading('back', zone('30111227', false)), 'back')).toEqual(['mrz_not_found']);
    expect(problemsAgainstFront(front, reading('back', zone('3011122', false)), 'back')).toEqual(['mrz_not_found']);
    expect(reasonOfProblem('mrz_not_found')).toBe('document_unreadable');
    // Read with its barcode, the zone's slip says nothing: the barcode vouches for the number.
    expect(problemsAgainstFront(front, reading('back', { ...zone('30111227', false), barcode_fields: FIELDS }), 'back')).toEqual(
      [],
    );
  });
});
