import { parsePrintedCuil, parsePrintedNumber } from '../src/readers/printed.reader';

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
