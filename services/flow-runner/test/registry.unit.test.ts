import { parseRegistryAnswer } from '../src/adapters/registry.client';
import { toRegistryQuery } from '../src/domain/document-decision';
import {
  REGISTRY_RETRY,
  nextRegistryAttempt,
  registryRetryDelayMs,
  registryRetrySchedule,
  testModeRegistry,
  type RegistryQuery,
} from '../src/domain/registry';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const middle = () => 0.5;

describe('the registry backoff schedule', () => {
  test('when attempts keep failing, then the waits double from 30 s up to 30 min', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 8, 20].map((failed) => registryRetryDelayMs(failed, 1, middle));
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 30 * MINUTE, 30 * MINUTE, 30 * MINUTE]);
  });

  test('when TIME_SCALE is small, then every wait is scaled by it', () => {
    expect(registryRetryDelayMs(1, 0.001, middle)).toBe(30);
    expect(registryRetryDelayMs(10, 0.001, middle)).toBe(1800);
  });

  test('when jitter is drawn, then each wait stays within ±20% of the schedule', () => {
    expect(registryRetryDelayMs(1, 1, () => 0)).toBe(24_000);
    expect(registryRetryDelayMs(1, 1, () => 0.999999)).toBeLessThanOrEqual(36_000);
    expect(registryRetryDelayMs(1, 1, () => 0.999999)).toBeGreaterThan(35_000);
  });

  test('when the schedule is laid end to end, then it covers exactly 24 h in 53 attempts after the first', () => {
    const waits = registryRetrySchedule();
    expect(waits.reduce((sum, wait) => sum + wait, 0)).toBe(24 * HOUR);
    expect(waits.slice(0, 7)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 30 * MINUTE]);
    expect(waits).toHaveLength(53);
    expect(REGISTRY_RETRY.windowMs).toBe(24 * HOUR);
  });

  test('when the next wait would pass the deadline, then the last attempt is made at the deadline, and none after it', () => {
    const now = new Date('2026-11-23T12:00:00.000Z');
    const giveUpAt = new Date(now.getTime() + 10_000);
    expect(nextRegistryAttempt(now, 1, giveUpAt, 1, middle)).toEqual(giveUpAt);
    expect(nextRegistryAttempt(giveUpAt, 2, giveUpAt, 1, middle)).toBeNull();
    expect(nextRegistryAttempt(new Date(giveUpAt.getTime() + 1), 2, giveUpAt, 1, middle)).toBeNull();
    const early = nextRegistryAttempt(now, 1, new Date(now.getTime() + HOUR), 1, middle);
    expect(early).toEqual(new Date(now.getTime() + 30_000));
  });
});

describe('the registry answer', () => {
  test('when the registry answers match, mismatch or not_found, then the answer is definite', () => {
    expect(parseRegistryAnswer(200, '{"result":"match"}')).toEqual({ kind: 'match' });
    expect(parseRegistryAnswer(200, '{"result":"not_found"}')).toEqual({ kind: 'not_found' });
    expect(parseRegistryAnswer(200, '{"result":"mismatch","fields":["birth_date","surname","birth_date"]}')).toEqual({
      kind: 'mismatch',
      fields: ['birth_date', 'surname'],
    });
  });

  test('when a mismatch names fields we do not know, or none, then it is still a mismatch with the known ones', () => {
    expect(parseRegistryAnswer(200, '{"result":"mismatch","fields":["photo","number"]}')).toEqual({
      kind: 'mismatch',
      fields: ['number'],
    });
    expect(parseRegistryAnswer(200, '{"result":"mismatch"}')).toEqual({ kind: 'mismatch', fields: [] });
  });

  test.each([
    ['5xx', 503, '{"result":"match"}', 'status_503'],
    ['500 without a body', 500, '', 'status_500'],
    ['4xx (our credentials or request)', 401, '{"error":"unauthorized"}', 'status_401'],
    ['429', 429, '', 'status_429'],
    ['a 2xx other than 200', 202, '{"result":"match"}', 'status_202'],
    ['HTML from a proxy', 200, '<html>Bad gateway</html>', 'malformed_json'],
    ['an empty body', 200, '', 'malformed_json'],
    ['an unknown result', 200, '{"result":"maybe"}', 'malformed_answer'],
    ['a result of the wrong type', 200, '{"result":true}', 'malformed_answer'],
    ['fields that are not a list', 200, '{"result":"mismatch","fields":"surname"}', 'malformed_answer'],
    ['JSON null', 200, 'null', 'malformed_answer'],
    ['a list', 200, '["match"]', 'malformed_answer'],
  ])(
    'when the registry answers %s, then the check is unavailable (retried), not a crash and not a mismatch',
    (_, status, body, cause) => {
      expect(parseRegistryAnswer(status, body)).toEqual({ kind: 'unavailable', cause });
    },
  );

  test('when a malformed answer echoes the holder data, then the cause does not carry it', () => {
    const answer = parseRegistryAnswer(200, '{"result":"odd","number":"26756539"}');
    expect(JSON.stringify(answer)).not.toContain('26756539');
  });
});

describe('the registry query', () => {
  const fields = {
    doc_type: 'dni' as const,
    series: 'B',
    number: '26756539',
    surname: 'PEREZ',
    given_names: 'JUAN CARLOS',
    sex: 'M' as const,
    birth_date: '1978-03-15',
    cuil: '20-26756539-3',
    expiry_date: null,
    issue_date: '2017-04-20',
    tramite: '00123456789',
    nationality: 'ARG',
    issuing_state: 'ARG',
  };

  test('when a DNI passed its checks, then the query carries number, sex, names, birth date, trámite and ejemplar', () => {
    expect(toRegistryQuery(fields, 'dni')).toEqual({
      document_type: 'dni',
      number: '26756539',
      sex: 'M',
      surname: 'PEREZ',
      given_names: 'JUAN CARLOS',
      birth_date: '1978-03-15',
      tramite: '00123456789',
      series: 'B',
    });
  });

  test('when the trámite or the sex was not read, then they go as null; when the number was not read, then there is no query', () => {
    expect(toRegistryQuery({ ...fields, tramite: null, sex: null }, undefined)).toMatchObject({ tramite: null, sex: null });
    expect(toRegistryQuery({ ...fields, number: null }, 'dni')).toBeNull();
  });
});

describe('the test-mode registry', () => {
  const query = (number: string): RegistryQuery => ({
    document_type: 'dni',
    number,
    sex: 'F',
    surname: 'PÉREZ',
    given_names: 'ANA',
    birth_date: '1990-01-02',
    tramite: null,
    series: null,
  });

  test.each([
    ['30111297', { kind: 'mismatch', fields: ['surname'] }],
    ['30111298', { kind: 'not_found' }],
    ['30111299', { kind: 'unavailable', cause: 'test_mode_unavailable' }],
    ['30111227', { kind: 'match' }],
    ['30111209', { kind: 'match' }],
    ['AAA249486', { kind: 'match' }],
  ])('when the number is %s, then the answer is decided by its last two digits', async (number, answer) => {
    await expect(testModeRegistry.verify(query(number), 'rgc_test')).resolves.toEqual(answer);
  });
});
