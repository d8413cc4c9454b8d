import { SESSION_STATUSES, type FlowConfig, type SessionStatus } from '@idv/contracts';
import { canonicalJson, decide, idempotencyLockKey, requestHash, type IdempotencyScope } from '../src/domain/idempotency';
import { filterResult, toPublicSession, unreachedSteps, type SessionRecord } from '../src/domain/session';
import { IllegalTransitionError, canTransition, isTerminal, transition, type SessionAction } from '../src/domain/session-state';
import { monthRange, usageCounts } from '../src/domain/usage';

const at = new Date('2026-11-22T12:00:00.000Z');
const steps = [{ id: 'consent', type: 'consent', verdict: 'approved' as const }];
const approved = { kind: 'resolve' as const, result: { outcome: 'approved' as const, reason_codes: [], steps } };
const rejected = { kind: 'resolve' as const, result: { outcome: 'rejected' as const, reason_codes: ['doc_blurry'], steps } };

describe('session state machine', () => {
  test('when a pending session is redeemed, then it goes in_progress with no event', () => {
    const t = transition('pending', { kind: 'redeem' }, at);
    expect(t).toEqual({ from: 'pending', to: 'in_progress', result: null, completedAt: null, events: [] });
  });

  test('when an in-progress session is approved, then approved and completed are emitted and completed_at is set', () => {
    const t = transition('in_progress', approved, at);
    expect(t.to).toBe('approved');
    expect(t.events).toEqual(['verification_session.approved', 'verification_session.completed']);
    expect(t.completedAt).toEqual(at);
    expect(t.result?.outcome).toBe('approved');
  });

  test('when an in-progress session is rejected, then rejected and completed are emitted', () => {
    const t = transition('in_progress', rejected, at);
    expect(t.events).toEqual(['verification_session.rejected', 'verification_session.completed']);
    expect(t.result?.reason_codes).toEqual(['doc_blurry']);
  });

  test('when a pending link expires, then the session is expired with outcome expired and only the expired event', () => {
    const t = transition('pending', { kind: 'expire', steps: [] }, at);
    expect(t).toMatchObject({ to: 'expired', result: { outcome: 'expired' }, events: ['verification_session.expired'] });
  });

  test('when an in-progress session is abandoned, then outcome abandoned and the expired event', () => {
    const t = transition('in_progress', { kind: 'abandon', steps: [] }, at);
    expect(t).toMatchObject({ to: 'abandoned', result: { outcome: 'abandoned' }, events: ['verification_session.expired'] });
  });

  test('when a non-terminal session is canceled, then canceled with only the canceled event and no result', () => {
    for (const from of ['pending', 'in_progress'] as const) {
      const t = transition(from, { kind: 'cancel' }, at);
      expect(t).toMatchObject({ to: 'canceled', result: null, completedAt: at, events: ['verification_session.canceled'] });
    }
  });

  test('when any transition leaves a terminal status, then it throws a terminal IllegalTransitionError', () => {
    const terminals = SESSION_STATUSES.filter(isTerminal);
    expect(terminals).toEqual(['approved', 'rejected', 'expired', 'abandoned', 'canceled']);
    for (const from of terminals) {
      for (const action of [{ kind: 'cancel' as const }, approved, { kind: 'redeem' as const }]) {
        let error: unknown;
        try {
          transition(from, action, at);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(IllegalTransitionError);
        expect((error as IllegalTransitionError).terminal).toBe(true);
      }
    }
  });

  test('when a pending session is resolved or abandoned, or an in-progress one redeemed again, then it throws a non-terminal error', () => {
    const cases: [SessionStatus, SessionAction][] = [
      ['pending', approved],
      ['pending', { kind: 'abandon', steps: [] }],
      ['in_progress', { kind: 'redeem' }],
    ];
    for (const [from, action] of cases) {
      expect(() => transition(from, action, at)).toThrow(IllegalTransitionError);
    }
    expect(canTransition('pending', 'approved')).toBe(false);
  });
});

describe('idempotency hashing', () => {
  test('when two payloads differ only in key order, then their hashes are equal', () => {
    expect(requestHash({ project_id: 'prj_1', expires_in_hours: 24 })).toBe(
      requestHash({ expires_in_hours: 24, project_id: 'prj_1' }),
    );
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
  });

  test('when a field value differs, then the hashes differ', () => {
    expect(requestHash({ project_id: 'prj_1', expires_in_hours: 24 })).not.toBe(
      requestHash({ project_id: 'prj_1', expires_in_hours: 25 }),
    );
  });

  test('when a record exists, then decide replays the same payload and refuses another', () => {
    const record = { requestHash: 'h', responseStatus: 201, responseBody: '{"id":"vs_1"}' };
    expect(decide(record, 'other')).toEqual({ kind: 'mismatch' });
    expect(decide(record, 'h')).toEqual({ kind: 'replay', status: 201, body: '{"id":"vs_1"}' });
  });

  test('when scopes differ in any part, then their advisory lock ids differ; the same scope gives the same id', () => {
    const scope: IdempotencyScope = { accountId: 'acc_1', mode: 'test', apiKeyId: 'key_1', key: 'k' };
    const id = idempotencyLockKey(scope);
    expect(idempotencyLockKey({ ...scope })).toBe(id);
    expect(BigInt(id) >= -(2n ** 63n) && BigInt(id) < 2n ** 63n).toBe(true);
    const changes: Partial<IdempotencyScope>[] = [{ accountId: 'acc_2' }, { mode: 'live' }, { apiKeyId: 'key_2' }, { key: 'k2' }];
    for (const change of changes) {
      expect(idempotencyLockKey({ ...scope, ...change })).not.toBe(id);
    }
  });
});

describe('session views', () => {
  const config = {
    steps: [{ id: 'extra', type: 'form', fields: [] }],
    options: { documentData: true, verifiedChannels: false, formData: false, evidenceLinks: false, webhookEvents: [] },
  } as unknown as FlowConfig;
  const record: SessionRecord = {
    id: 'vs_1',
    accountId: 'acc_1',
    mode: 'test',
    projectId: 'prj_1',
    configVersion: 3,
    isTry: false,
    status: 'pending',
    externalRef: null,
    linkToken: 'lt_abc',
    apiKeyId: 'key_1',
    expiresAt: new Date(at.getTime() + 1000),
    redeemedAt: null,
    idleDeadline: null,
    result: null,
    completedAt: null,
    createdAt: at,
  };
  const bases = { publicBaseUrl: 'https://api.example/', flowBaseUrl: 'https://flow.example' };

  test('when the link is live, then url, qr and expires_at are present; once expired or not pending, they are not', () => {
    const view = toPublicSession(record, bases, at);
    expect(view).toMatchObject({
      url: 'https://flow.example/l/lt_abc',
      qr: { svg: 'https://api.example/v1/qr/lt_abc.svg', png: 'https://api.example/v1/qr/lt_abc.png' },
      config_version: 'cfg_00000003',
    });
    expect(toPublicSession(record, bases, new Date(at.getTime() + 1000)).url).toBeUndefined();
    expect(toPublicSession({ ...record, status: 'in_progress' }, bases, at).qr).toBeUndefined();
  });

  test('when a result carries data the config did not opt into, then only the opted-in data is kept', () => {
    const doc = {
      doc_type: 'dni',
      series: 'A',
      number: '1',
      surname: 'P',
      given_names: 'J',
      sex: 'M',
      birth_date: '1990-01-01',
      cuil: '20-1-0',
      expiry_date: '2030-01-01',
    };
    const filtered = filterResult(
      {
        outcome: 'approved',
        reason_codes: ['x'],
        steps,
        document: doc,
        verified_channels: { email: 'a@b.c' },
        form_data: { a: 'b' },
      },
      config,
    );
    expect(filtered).toEqual({ outcome: 'approved', reason_codes: [], steps, document: doc });
  });

  test('when a session ends by time, then every step including consent is listed as not reached', () => {
    expect(unreachedSteps(config)).toEqual([
      { id: 'consent', type: 'consent', verdict: 'not_reached' },
      { id: 'extra', type: 'form', verdict: 'not_reached' },
    ]);
  });
});

describe('usage helpers', () => {
  test('when a month is given, then its UTC range ends at the next month', () => {
    expect(monthRange('2026-12')).toEqual({ from: new Date('2026-12-01T00:00:00Z'), to: new Date('2027-01-01T00:00:00Z') });
  });

  test('when counts are grouped, then every status is present with a total per mode', () => {
    const counts = usageCounts([{ mode: 'live', status: 'pending', count: 2 }]);
    expect(counts.live).toMatchObject({ pending: 2, approved: 0, total: 2 });
    expect(counts.test.total).toBe(0);
  });
});
