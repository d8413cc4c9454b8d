import { checkCuil, computeCuilCheckDigit, cuilHolderProblems, defaultCuilFor, parseCuil } from '../src/tooling';
import { readReferenceJson, type CuilReferenceEntry } from './reference-data';

const referenceEntries = readReferenceJson<CuilReferenceEntry[]>('cuil.json');

function validCuil(input: string) {
  const parsed = parseCuil(input);
  if (!parsed.ok) throw new Error(`expected a valid CUIL, got ${parsed.failure}`);
  return parsed;
}

describe('CUIL reference data (shared/data/reference-documents/cuil.json)', () => {
  test('when the reference file is read, then it holds the 44 numbers its README describes', () => {
    expect(referenceEntries).toHaveLength(44);
  });

  test.each(referenceEntries.map((entry, index) => [index, JSON.stringify(entry.cuil), entry] as const))(
    'when entry %i (%s) is parsed, then its validity is the expected one',
    (_index, _cuil, entry) => {
      expect(parseCuil(entry.cuil).ok).toBe(entry.valid);
    },
  );
});

describe('parseCuil', () => {
  test('when a CUIL is valid, then it is returned formatted with its parts', () => {
    expect(parseCuil('20267565393')).toEqual({
      ok: true,
      cuil: '20-26756539-3',
      prefix: '20',
      number: '26756539',
      check_digit: 3,
      kind: 'person',
    });
  });

  test('when the dashes are misplaced, then it is a format failure', () => {
    expect(parseCuil('200-5536168-2')).toMatchObject({ ok: false, failure: 'format' });
  });

  test('when the prefix is not issued, then it is a prefix failure', () => {
    expect(parseCuil('99-05536168-8')).toMatchObject({ ok: false, failure: 'prefix' });
  });

  test('when the sum gives 10, then no check digit is valid with that prefix and 23 carries the number', () => {
    expect(computeCuilCheckDigit('20', '99999999')).toBeNull();
    // Some libraries accept 9 in that case; it is not a number AFIP issues.
    expect(parseCuil('20-99999999-9')).toMatchObject({ ok: false, failure: 'check_digit' });
    expect(parseCuil('23-99999999-9').ok).toBe(true);
  });

  test('when the sum gives 11, then the check digit is 0', () => {
    expect(computeCuilCheckDigit('30', '51757696')).toBe(0);
    expect(parseCuil('30-51757696-0')).toMatchObject({ ok: true, check_digit: 0, kind: 'company' });
  });
});

describe('defaultCuilFor', () => {
  test('when a DNI has 7 digits, then it is zero-padded to 8 inside the CUIL', () => {
    expect(defaultCuilFor('7507882', 'M')).toBe('20-07507882-0');
  });

  test('when the default prefix cannot carry the number, then the CUIL takes 23 with 9 for a man and 4 for a woman', () => {
    const womanWithPrefix23 = Array.from({ length: 200 }, (_, offset) => String(30_000_000 + offset)).find(
      (number) => computeCuilCheckDigit('27', number) === null,
    );
    if (womanWithPrefix23 === undefined) throw new Error('no number in the range needs prefix 23 for a woman');

    expect(defaultCuilFor('99999999', 'M')).toBe('23-99999999-9');
    expect(defaultCuilFor('99999999', 'F')).toBe('27-99999999-4');
    expect(defaultCuilFor(womanWithPrefix23, 'F')).toBe(`23-${womanWithPrefix23}-4`);
  });

  test('when the sex is X, then no default is claimed', () => {
    expect(defaultCuilFor('99999999', 'X')).toBeNull();
  });
});

describe('cuilHolderProblems', () => {
  test('when a CUIL matches the DNI and sex, then there is no problem', () => {
    expect(cuilHolderProblems(validCuil('27-99999999-4'), { sex: 'F', number: '99.999.999' })).toEqual([]);
  });

  test("when the prefix is the other sex's, then it is a prefix-sex mismatch", () => {
    expect(cuilHolderProblems(validCuil('27-99999999-4'), { sex: 'M', number: '99999999' })).toEqual(['prefix_sex_mismatch']);
    expect(cuilHolderProblems(validCuil('20-26756539-3'), { sex: 'F', number: '26756539' })).toEqual(['prefix_sex_mismatch']);
  });

  test('when the prefix is 23 or 24, then either sex fits', () => {
    expect(cuilHolderProblems(validCuil('23-99999999-9'), { sex: 'M', number: '99999999' })).toEqual([]);
    expect(cuilHolderProblems(validCuil('23-99999999-9'), { sex: 'F', number: '99999999' })).toEqual([]);
  });

  test('when the CUIL is a company CUIT, then it is not a person', () => {
    expect(cuilHolderProblems(validCuil('30-70308853-4'), { sex: 'M', number: '70308853' })).toEqual(['not_a_person']);
  });

  test('when the middle digits are not the zero-padded DNI, then it is a number mismatch', () => {
    expect(cuilHolderProblems(validCuil('20-07507882-0'), { sex: 'M', number: '7507882' })).toEqual([]);
    expect(cuilHolderProblems(validCuil('20-07507882-0'), { sex: 'M', number: '7507883' })).toEqual(['number_mismatch']);
  });
});

describe('checkCuil', () => {
  test('when the CUIL is consistent, then the check passes', () => {
    expect(checkCuil('27-99999999-4', { sex: 'F', number: '99999999' })).toEqual({ status: 'passed', check: 'cuil' });
  });

  test('when the check digit is wrong, then the verdict is document_cuil_invalid', () => {
    expect(checkCuil('27-36170503-1', { sex: 'F', number: '36170503' })).toMatchObject({
      status: 'failed',
      reason_code: 'document_cuil_invalid',
      fields: ['cuil'],
    });
  });

  test("when the prefix is the other sex's, then the check passes unless the pre-2021 rule is asked for", () => {
    const holder = { sex: 'F' as const, number: '26756539' };

    expect(checkCuil('20-26756539-3', holder).status).toBe('passed');
    expect(checkCuil('20-26756539-3', holder, { requirePrefixMatchingSex: true })).toMatchObject({
      status: 'failed',
      reason_code: 'document_cuil_invalid',
      detail: 'prefix_sex_mismatch',
    });
  });

  test('when the CUIL is a company CUIT or holds another DNI number, then the verdict is document_cuil_invalid', () => {
    expect(checkCuil('30-70308853-4', { sex: 'M', number: '70308853' })).toMatchObject({ detail: 'not_a_person' });
    expect(checkCuil('20-07507882-0', { sex: 'M', number: '7507883' })).toMatchObject({ detail: 'number_mismatch' });
  });

  test('when there is no CUIL, then the check is inconclusive', () => {
    expect(checkCuil(null, { sex: 'F', number: '99999999' }).status).toBe('inconclusive');
  });
});
