import type { OcrResult } from '../src/readers/ocr';
import {
  parsePassportNumber,
  parsePrintedCuil,
  parsePrintedDate,
  differsOnlyByConfusableDigits,
  parsePrintedNumber,
  printedNumberAgainst,
  valueOfBlock,
} from '../src/readers/printed.reader';
import { wholeFrontSymbol } from '../src/readers/barcode.reader';

describe('the printed DNI number', () => {
  test.each([
    ['12.244.617', '12244617'],
    ['9.466.949', '9466949'],
    ['25186299', '25186299'],
    [' 31 075 199 ', '31075199'],
  ])('when the card prints %s, then it is read as %s', (text, number) => {
    expect(parsePrintedNumber(text)).toBe(number);
  });

  test.each(['31.075.19', '94.669.49', '1.234.5678', '123.456.789', '12.244', 'DOCUMENTO'])(
    'when the groups of %s break the printed shape (a digit lost or gained), then nothing is reported',
    (text) => {
      expect(parsePrintedNumber(text)).toBeNull();
    },
  );
});

describe("a printed number against the barcode's, digit by digit", () => {
  test.each([
    // s31-000070, a dim 2012 front: its 9 read as 3 in two looks.
    ['33659631', '93659631'],
    ['42826088', '42826038'],
    ['5.466.949', '9466949'],
    // s99-000104, a blurred 2012 front: its 4 read as 1 in two looks.
    ['1372083', '4372083'],
    ['7.466.949', '1466949'],
  ])('when %s differs from %s only in digits a worn print confuses, then it is weak evidence', (read, source) => {
    expect(differsOnlyByConfusableDigits(read, source)).toBe(true);
  });

  test.each([
    // The altered prints of the corpus's dim and turned fronts (printed-fields.component.test.ts).
    ['62826038', '42826038'],
    ['9922010', '9722010'],
    // One confusable digit and one not.
    ['33659621', '93659631'],
    // Confusable digits of two groups: a 4 does not blur into a 9.
    ['9372083', '4372083'],
    // Equal, or of another length: not a confusion of glyphs.
    ['93659631', '93659631'],
    ['3659631', '93659631'],
  ])('when %s against %s, then it is not a confusion of glyphs', (read, source) => {
    expect(differsOnlyByConfusableDigits(read, source)).toBe(false);
  });
});

describe('a date printed on a DNI or passport', () => {
  test.each([
    ['01 NOV/ NOV 1969', '1969-11-01'],
    ['23 AGO/AUG 1974', '1974-08-23'],
    ['8 ENE/ JAN 2030', '2030-01-08'],
  ])('%s reads as %s', (text, date) => {
    expect(parsePrintedDate(text)).toBe(date);
  });

  test.each([
    // A misread month: the day is not taken from inside it (`A601` held `01 AUG 1974`).
    ['23 A601 AUG 1974'],
    ['26 DICI DEC 2028'],
    // A year no card carries is a misread digit.
    ['18 SEP/ SEP 9015'],
    [''],
  ])('%j is no date', (text) => {
    expect(parsePrintedDate(text)).toBeNull();
  });
});

describe('the CUIL printed on a DNI back', () => {
  test.each([
    ['CUIL: 27-25259347-6', '27-25259347-6'],
    ['CUIL: 20 - 04609297 - 0', '20-04609297-0'],
    ['CU L: 20-07534018-5', '20-07534018-5'],
  ])('when the back prints %s, then it is read as %s', (text, cuil) => {
    expect(parsePrintedCuil(text)).toBe(cuil);
  });

  test.each(['CUIL: 20315193186', 'CU L: 20293810410', 'L: 23-0505696-4', '601: 275115256374 1', 'CUIL: 127-25259347-6', ''])(
    'when %s lacks the printed shape (hyphens, 2 + 8 + 1 digits), then nothing is reported',
    (text) => {
      expect(parsePrintedCuil(text)).toBeNull();
    },
  );
});

describe("the number printed in a passport's visual zone", () => {
  test.each(['L898902C3', 'AAA372172', 'C38X78T67', '7749473', 'FA707244', 'L89890203'])(
    'when the zone prints %s, then it is a candidate number',
    (text) => {
      expect(parsePassportNumber(text)).toBe(text);
    },
  );

  test.each(['PASSPORT', 'PASAPORTE', 'N0', 'AB12', 'ABCDE12', 'L898902C36', 'aaa372172', 'AAA 372172'])(
    'when %s is not shaped like a passport number (6–9 letters and digits, three digits or more), then it is not',
    (text) => {
      expect(parsePassportNumber(text)).toBeNull();
    },
  );

  test.each([
    ['L89890203', 'L898902C3', 'a letter read as a digit (the ICAO specimen: C as 0)'],
    ['AAA372I72', 'AAA372172', 'a digit read as a letter'],
    ['AAB372172', 'AAA372172', 'a letter read as another letter'],
    ['AAA372172', 'AAA372172', 'the same characters'],
  ])('when the print reads %s against the MRZ’s %s (%s), then it says the MRZ’s number', (printed, machine) => {
    expect(printedNumberAgainst({ number: printed }, machine)).toEqual({ number: machine });
  });

  test.each([
    ['AAA372772', 'AAA372172'],
    ['C22X52T06', 'C22X72T06'],
    ['8749473', '7749473'],
  ])(
    'when the print shows another digit where the MRZ has %s’s, then it is given as read and the cross-check sees it',
    (printed, machine) => {
      expect(printedNumberAgainst({ number: printed }, machine)).toEqual({ number: printed });
    },
  );

  it('when the print was read with a character lost or gained, then no number is given and the other fields stay', () => {
    expect(printedNumberAgainst({ number: 'AA372172', surname: 'PEREZ' }, 'AAA372172')).toEqual({ surname: 'PEREZ' });
    expect(printedNumberAgainst({ number: 'AAA3721720' }, 'AAA372172')).toEqual({});
  });

  it('when nothing was read, then nothing is given', () => {
    expect(printedNumberAgainst({}, 'AAA372172')).toEqual({});
  });
});

describe('the value of a block of printed text', () => {
  const box = { x0: 0, y0: 0, x1: 1, y1: 1 };
  const block = (...lines: [string, number][][]): OcrResult => ({
    text: lines.map((line) => line.map(([text]) => text).join(' ')).join('\n'),
    confidence: 50,
    lines: lines.map((line) => ({
      text: line.map(([text]) => text).join(' '),
      confidence: 50,
      bbox: box,
      words: line.map(([text, confidence]) => ({ text, confidence, bbox: box, symbols: [] })),
    })),
  });

  it('when the engine split a number at a wide gap, then the words are joined and as confident as the weakest', () => {
    const read = valueOfBlock(
      'passport_number',
      block(
        [['PASAPORTE', 40]],
        [
          ['AAA3', 88],
          ['72172', 81],
          ['I', 30],
        ],
      ),
    );
    expect(read).toMatchObject({ value: 'AAA372172', confidence: 81 });
  });

  it('when two numbers are in the block, then the longest wins, then the most confident', () => {
    const read = valueOfBlock('passport_number', block([['1234567', 95]], [['FA707244', 80]], [['FA707245', 85]]));
    expect(read).toMatchObject({ value: 'FA707245', confidence: 85 });
  });

  it('when one of them agrees with the MRZ, then it wins whatever its confidence, so the other cannot pass for an altered print', () => {
    const read = valueOfBlock('passport_number', block([['45129765', 92]], [['FA7O7244', 60]]), (value) =>
      ['FA707244', 'FA7O7244'].includes(value),
    );
    expect(read).toMatchObject({ value: 'FA7O7244', confidence: 60 });
  });

  it('when nothing in the block parses, then no value is given and the block’s text is kept for support', () => {
    const read = valueOfBlock(
      'passport_number',
      block([
        ['Pasaporte', 70],
        ['N°', 40],
      ]),
    );
    expect(read).toEqual({ text: 'Pasaporte N°', confidence: 50, value: null });
  });
});

describe("a 2012 front's symbol outline", () => {
  const outline = (width: number, height: number) => ({
    topLeft: { x: 100, y: 200 },
    topRight: { x: 100 + width, y: 200 },
    bottomRight: { x: 100 + width, y: 200 + height },
    bottomLeft: { x: 100, y: 200 + height },
  });

  test('when zxing outlines the whole symbol (3.9 times as wide as its left edge is tall), then it is kept', () => {
    expect(wholeFrontSymbol(outline(468, 120))).toEqual(outline(468, 120));
  });

  test('when the outline is short of its last columns (s99-000104: 360 × 113), then its right edge moves out', () => {
    const whole = wholeFrontSymbol(outline(360, 113));

    expect(whole.topLeft).toEqual({ x: 100, y: 200 });
    expect(whole.topRight.x - whole.topLeft.x).toBeCloseTo(3.93 * 113, 5);
    expect(whole.bottomRight.x - whole.bottomLeft.x).toBeCloseTo(3.93 * 113, 5);
    expect(whole.bottomRight.y).toBe(313);
  });
});
