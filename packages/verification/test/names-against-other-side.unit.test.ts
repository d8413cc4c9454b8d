import { combineSides } from '../src/pipeline/read-document';
import { blankSideReading, zoneReading, type SideReading } from '../src/pipeline/read-side';
import { settleNameAgainst } from '../src/readers/printed.reader';

// A 2009 DNI: its front's zone gives the number, sex and dates, and here withholds the names (its two
// engines disagreed on them), so the front's printed names have nothing on their side to settle against;
// the back's barcode names the holder.
const TODAY = '2026-11-29';
const HOLDER = {
  doc_type: 'dni' as const,
  series: 'A',
  number: '7593638',
  surname: 'RUIZ',
  given_names: 'MÓNICA',
  sex: 'F' as const,
  birth_date: '1954-06-03',
  cuil: null,
  expiry_date: '2027-04-09',
  issue_date: '2012-04-09',
  tramite: '00402483546',
  nationality: 'ARG',
  issuing_state: 'ARG',
};

function front2009(surname: string, nameReads?: { surname?: string[]; given_names?: string[] }): SideReading {
  const printed: NonNullable<SideReading['printed']> = {
    layout: 'dni_2009_front',
    fields: { number: '7593638', sex: 'F', expiry_date: '2027-04-09', surname, given_names: 'MONICA' },
    raw: {},
    status: { number: 'agrees', sex: 'agrees', expiry_date: 'agrees', surname: 'read', given_names: 'read' },
    labels: [],
    ...(nameReads === undefined ? {} : { nameReads }),
  };
  return {
    ...blankSideReading('front'),
    detected_type: 'dni',
    detected_face: 'front',
    mrz_fields: { ...HOLDER, series: null, surname: null, given_names: null, tramite: null, issue_date: null },
    printed,
  };
}

const back = (): SideReading => ({
  ...blankSideReading('back'),
  detected_type: 'dni',
  detected_face: 'back',
  barcode_fields: HOLDER,
});

const judge = (front: SideReading) =>
  combineSides([front, back()], { acceptedTypes: ['dni'], today: TODAY, expectedType: 'dni' });

describe('a name its side could not settle, settled against the other side', () => {
  it('when the front prints a surname one letter off the barcode and two looks read it so, then document_data_mismatch', () => {
    const reading = judge(front2009('BUIZ', { surname: ['BUIZ', 'BUIZ'], given_names: ['MONICA', 'MONICA'] }));

    expect(reading.reasons).toEqual(['document_data_mismatch']);
    expect(reading.checks.find((check) => check.name === 'data_consistency')).toMatchObject({
      verdict: 'failed',
      fields: ['surname'],
    });
  });

  it('when a reading stored without its looks says such a surname, then it stands for two looks alike: document_data_mismatch', () => {
    expect(judge(front2009('BUIZ')).reasons).toEqual(['document_data_mismatch']);
  });

  it("when one of the looks read the barcode's surname, then the others were OCR's slips and the document passes", () => {
    const reading = judge(front2009('NUIZ', { surname: ['NUIZ', 'RUIZ', 'NUIZ'], given_names: ['MONICA', 'MONICA'] }));

    expect(reading.reasons).toEqual([]);
    expect(reading.fields).toMatchObject({ surname: 'RUIZ' });
  });

  it('when the print is read as the barcode says, then it passes', () => {
    expect(judge(front2009('RUIZ', { surname: ['RUIZ', 'RUIZ'], given_names: ['MONICA', 'MONICA'] })).reasons).toEqual([]);
  });

  it('when the looks only read the name cut at its end, then nothing is settled and the print check fails as unread', () => {
    const reading = judge(front2009('RUI', { surname: ['RUI', 'RUI'], given_names: ['MONICA', 'MONICA'] }));

    expect(reading.checks.find((check) => check.name === 'print')).toMatchObject({ verdict: 'failed' });
    expect(reading.reasons).toEqual(['document_unreadable']);
  });
});

describe('settleNameAgainst', () => {
  const source = { surname: 'RUIZ', given_names: 'MÓNICA' };

  it.each([
    [['RUIZ'], { value: 'RUIZ', status: 'agrees' }],
    [['BUIZ', 'RUIZ'], { value: 'RUIZ', status: 'agrees' }],
    [['BUIZ', 'BUIZ'], { value: 'BUIZ', status: 'differs' }],
    [['BUIZ', 'GUIZ'], null],
    [['RUI', 'RUI'], null],
  ])('looks %j against RUIZ settle %j', (looks, settled) => {
    expect(settleNameAgainst('surname', looks, source)).toEqual(settled);
  });

  it('when the other side gives no such name, then nothing is settled', () => {
    expect(settleNameAgainst('surname', ['BUIZ', 'BUIZ'], { given_names: 'MÓNICA' })).toBeNull();
  });
});

describe('a printed name that agreed with a zone whose name field is full', () => {
  const zone = (namesTruncated: boolean) =>
    zoneReading({
      lines: ['IDARG11458688<9<<<<<<<<<<<<<<<', '5903025F2706203ARG<<<<<<<<<<<8', 'PEREYRA<PENALOZA<<MARIA<VICTOR'],
      names_truncated: namesTruncated,
    });
  const holder = { ...HOLDER, number: '11458688', surname: 'PEREYRA PEÑALOZA', given_names: 'MARÍA VICTORIA' };
  const front = (namesTruncated: boolean): SideReading => ({
    ...blankSideReading('front'),
    detected_type: 'dni',
    detected_face: 'front',
    mrz: zone(namesTruncated),
    mrz_fields: { ...holder, given_names: 'MARIA VICTOR', series: null, tramite: null, issue_date: null },
    printed: {
      layout: 'dni_2009_front',
      // As the zone gives them back once the print agreed with them.
      fields: {
        number: '11458688',
        sex: 'F',
        expiry_date: '2027-04-09',
        surname: 'PEREYRA PENALOZA',
        given_names: 'MARIA VICTOR',
      },
      raw: {},
      status: { number: 'agrees', sex: 'agrees', expiry_date: 'agrees', surname: 'agrees', given_names: 'agrees' },
      labels: [],
    },
  });
  const withBack = (side: SideReading) =>
    combineSides([side, { ...back(), barcode_fields: holder }], { acceptedTypes: ['dni'], today: TODAY, expectedType: 'dni' });

  it("when the zone's names were cut short, then they are compared as cut short and the genuine card passes", () => {
    expect(withBack(front(true)).reasons).toEqual([]);
  });

  const withLooks = (looks: string[]): SideReading => {
    const side = front(true);
    return { ...side, printed: { ...side.printed!, nameReads: { surname: ['PEREYRA PENALOZA'], given_names: looks } } };
  };

  it("when the look that agreed with the cut zone reads the barcode's whole name, then the card passes with it", () => {
    const reading = withBack(withLooks(['MARIA VICTORIA']));

    expect(reading.reasons).toEqual([]);
    expect(reading.fields.given_names).toBe('MARÍA VICTORIA');
  });

  it('when two looks read the print past the cut as another name than the barcode, then document_data_mismatch', () => {
    expect(withBack(withLooks(['MARIA VICTORXA', 'MARIA VICTORXA'])).reasons).toEqual(['document_data_mismatch']);
  });

  it("when the zone says its names were whole, then a shorter given name than the barcode's is a mismatch", () => {
    expect(withBack(front(false)).reasons).toEqual(['document_data_mismatch']);
  });
});
