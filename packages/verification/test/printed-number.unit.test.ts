import { parsePrintedNumber } from '../src/readers/printed.reader';

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
