import { settledPrintOf, withSettledPrint, type SettledPrint } from '../src/pipeline/front-print';
import { combineSides } from '../src/pipeline/read-document';
import { barcodeReading, blankSideReading, type SideReading } from '../src/pipeline/read-side';
import type { PrintedFieldName, PrintedStatus } from '../src/readers/printed.reader';

// A 2012 DNI photographed in dim light: each photo of its front settles some of the print the checks
// need (the names, the sex, the dates), none settles all of it.
const TODAY = '2026-11-30';
const HOLDER = {
  doc_type: 'dni' as const,
  series: 'B',
  number: '30111222',
  surname: 'PEREZ',
  given_names: 'ANA SOFIA',
  sex: 'F' as const,
  birth_date: '1990-01-02',
  cuil: null,
  expiry_date: null,
  issue_date: '2018-03-12',
  tramite: '00123456789',
  nationality: null,
  issuing_state: 'ARG',
};
const PAYLOAD = '00123456789@PEREZ@ANA SOFIA@F@30111222@B@02/01/1990@12/03/2018';
const PRINTED = { ...HOLDER, expiry_date: '2033-03-12' };

type Settled = Partial<Record<PrintedFieldName, PrintedStatus>>;

/** A photo of the front whose print settled `status`, each field as printed or, where it `differs`, as `differs` says. */
function frontPhoto(status: Settled, options: { payload?: string; differs?: Partial<typeof PRINTED> } = {}): SideReading {
  const fields: Record<string, unknown> = {};
  for (const [field, settled] of Object.entries(status)) {
    if (settled === 'unread') continue;
    fields[field] = options.differs?.[field as keyof typeof PRINTED] ?? PRINTED[field as keyof typeof PRINTED];
  }
  const needed = ['surname', 'given_names', 'number', 'sex', 'birth_date', 'expiry_date'] as const;
  const unsettled = needed.some((field) => (status[field] ?? 'unread') === 'unread');
  const differs = needed.some((field) => status[field] === 'differs');
  return {
    ...blankSideReading('front'),
    detected_type: 'dni',
    detected_face: 'front',
    barcode: barcodeReading(options.payload ?? PAYLOAD),
    barcode_fields: HOLDER,
    printed: { layout: 'dni_2012_front', fields, raw: {}, status, labels: [] },
    problems: unsettled && !differs ? ['print_unreadable'] : [],
  };
}

const NAMES_UNREAD: Settled = { number: 'agrees', birth_date: 'agrees', sex: 'agrees', expiry_date: 'read' };
const EXPIRY_UNREAD: Settled = {
  surname: 'agrees',
  given_names: 'agrees',
  number: 'agrees',
  sex: 'agrees',
  birth_date: 'agrees',
};

const back = (): SideReading => ({ ...blankSideReading('back'), detected_type: 'dni', detected_face: 'back' });
const judge = (front: SideReading) =>
  combineSides([front, back()], { acceptedTypes: ['dni'], today: TODAY, expectedType: 'dni' });

describe("a front's print settled across its photos", () => {
  it('when one photo settled the names and the next the expiry, then the front is taken and the document passes with both', () => {
    const earlier = settledPrintOf(frontPhoto(NAMES_UNREAD), null);
    const front = withSettledPrint(frontPhoto(EXPIRY_UNREAD), earlier);

    expect(front.problems).toEqual([]);
    expect(front.printed?.status).toMatchObject({ expiry_date: 'read', surname: 'agrees' });
    const reading = judge(front);
    expect(reading.reasons).toEqual([]);
    expect(reading.fields).toMatchObject({ expiry_date: '2033-03-12', surname: 'PEREZ' });
  });

  it('when the photos pooled still leave a needed field unsettled, then the front is still asked for again', () => {
    const earlier = settledPrintOf(frontPhoto({ number: 'agrees', birth_date: 'agrees', surname: 'agrees' }), null);
    const front = withSettledPrint(frontPhoto(EXPIRY_UNREAD), earlier);

    expect(front.problems).toEqual(['print_unreadable']);
  });

  it('when three photos each add a field, then what every earlier photo settled is kept', () => {
    const first = settledPrintOf(frontPhoto({ expiry_date: 'read', number: 'agrees' }), null);
    const second = settledPrintOf(frontPhoto({ surname: 'agrees', given_names: 'agrees', number: 'agrees' }), first);
    const front = withSettledPrint(frontPhoto({ number: 'agrees', sex: 'agrees', birth_date: 'agrees' }), second);

    expect(front.problems).toEqual([]);
  });

  it('when the earlier photo shows another card (another barcode), then nothing is pooled', () => {
    const earlier = settledPrintOf(frontPhoto(NAMES_UNREAD, { payload: `${PAYLOAD}@other` }), null);

    expect(withSettledPrint(frontPhoto(EXPIRY_UNREAD), earlier).problems).toEqual(['print_unreadable']);
  });

  it('when a photo read a needed field that differs from the barcode, then it is never carried, and the photo judged differs', () => {
    const altered = frontPhoto({ ...NAMES_UNREAD, surname: 'differs', given_names: 'agrees' }, { differs: { surname: 'PERES' } });
    const carried = settledPrintOf(altered, null) as SettledPrint;

    expect(altered.problems).toEqual([]);
    expect(carried.status.surname).toBeUndefined();
    expect(judge(altered).reasons).toEqual(['document_data_mismatch']);
  });

  it("when the latest photo's print differs, then nothing earlier is laid over it", () => {
    const earlier = settledPrintOf(frontPhoto(EXPIRY_UNREAD), null);
    const altered = frontPhoto({ ...NAMES_UNREAD, surname: 'differs', given_names: 'agrees' }, { differs: { surname: 'PERES' } });

    expect(withSettledPrint(altered, earlier)).toBe(altered);
  });

  it('when a front has no barcode or zone to name its card, then nothing is carried from it', () => {
    expect(settledPrintOf({ ...frontPhoto(NAMES_UNREAD), barcode: null }, null)).toBeNull();
  });
});
