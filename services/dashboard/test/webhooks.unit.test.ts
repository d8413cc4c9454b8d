import { personalDataSessionOf } from '../src/domain/webhooks';

const SESSION = 'vs_01M8PEGES70ACRXAC6PQW0CV94';
const envelope = (object: unknown) =>
  JSON.stringify({ id: 'evt_1', object: 'event', type: 'verification_session.approved', data: { object } });

describe("a delivery body's personal data", () => {
  test('when the session in the body has a document, verified channels or form answers, then it names the session', () => {
    for (const result of [
      { outcome: 'approved', document: { number: '30123456' } },
      { outcome: 'approved', verified_channels: { email: 'juana@example.com' } },
      { outcome: 'approved', form_data: { nombre: 'Juana' } },
    ]) {
      expect(personalDataSessionOf(envelope({ id: SESSION, result }))).toBe(SESSION);
    }
  });

  test('when the body carries no personal data, is not JSON, or names no session, then it names none', () => {
    expect(personalDataSessionOf(envelope({ id: SESSION, result: { outcome: 'approved', reason_codes: [] } }))).toBeNull();
    expect(personalDataSessionOf(envelope({ id: SESSION }))).toBeNull();
    expect(personalDataSessionOf(envelope({ id: 'not-a-session', result: { form_data: { a: 'b' } } }))).toBeNull();
    expect(personalDataSessionOf(envelope(null))).toBeNull();
    expect(personalDataSessionOf('{"id": "evt_test", "object": "event", "type": "test"')).toBeNull();
    expect(personalDataSessionOf(null)).toBeNull();
  });
});
