import { csvLine } from '../src';

describe('a CSV line', () => {
  test('when a cell has a comma, a quote or a line break, then it is quoted, its quotes doubled', () => {
    expect(csvLine(['a', 'b,c', 'd"e', 'f\ng'])).toBe('a,"b,c","d""e","f\ng"\r\n');
  });

  test('when a cell would start a formula in a spreadsheet, then it starts with an apostrophe and stays text', () => {
    expect(csvLine(['=HYPERLINK("http://x")', '+1', '-2', '@SUM(A1)', '\tx', 'ok-1'])).toBe(
      `"'=HYPERLINK(""http://x"")",'+1,'-2,'@SUM(A1),'\tx,ok-1\r\n`,
    );
  });
});
