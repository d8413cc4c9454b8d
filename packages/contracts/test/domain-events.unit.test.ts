import {
  DOMAIN_EVENT_DATA_SCHEMAS,
  DOMAIN_EVENT_TYPES,
  DOMAIN_EVENTS,
  DomainEventSchema,
  SESSION_EVENT_TYPES,
  asId,
  domainEvents,
  eventId,
  newArtefactId,
  newId,
  type SessionEventData,
} from '../src';

const AT = new Date('2026-12-01T10:00:00.000Z');

function sessionData(): SessionEventData {
  return {
    account_id: newId('account'),
    session: {
      id: newId('session'),
      object: 'verification_session',
      status: 'canceled',
      mode: 'test',
      project_id: newId('project'),
      config_version: 'cfg_00000001',
      created_at: AT.toISOString(),
      completed_at: AT.toISOString(),
    },
    webhook_events: ['verification_session.canceled'],
    options: { documentData: false, verifiedChannels: false, formData: false, evidenceLinks: false },
  };
}

describe('domain events', () => {
  it('when each constructor builds its event, then the envelope has its type, its time, and data its schema accepts', () => {
    const artefact = newArtefactId();
    const built = [
      domainEvents.apiKeyRevoked({ key_id: newId('apiKey'), account_id: newId('account'), secret_hash: 'a'.repeat(64) }, AT),
      domainEvents.accountStatusChanged({ account_id: newId('account'), status: 'suspended' }, AT),
      domainEvents.captureStored({ session_id: newId('session'), step_id: 'doc', artefact_id: artefact, kind: 'front' }, AT),
      domainEvents.faceFramesStored({ session_id: newId('session'), step_id: 'face', artefact_id: artefact }, AT),
      domainEvents.sessionTransition('verification_session.canceled', sessionData(), AT),
    ];

    expect(built.map((event) => event.type)).toEqual([
      DOMAIN_EVENTS.apiKeyRevoked,
      DOMAIN_EVENTS.accountStatusChanged,
      DOMAIN_EVENTS.captureStored,
      DOMAIN_EVENTS.faceFramesStored,
      'verification_session.canceled',
    ]);
    for (const event of built) {
      expect(event.occurred_at).toBe(AT.toISOString());
      expect(DomainEventSchema.safeParse(event).success).toBe(true);
      expect(DOMAIN_EVENT_DATA_SCHEMAS[event.type].safeParse(event.data).success).toBe(true);
    }
  });

  it('when a fact happens once, then its event gets a fresh id; when it may be written again, the same id', () => {
    const revoked = { key_id: newId('apiKey'), account_id: newId('account'), secret_hash: 'b'.repeat(64) };
    expect(domainEvents.apiKeyRevoked(revoked).id).not.toBe(domainEvents.apiKeyRevoked(revoked).id);
    expect(domainEvents.apiKeyRevoked(revoked).id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);

    const artefact = newArtefactId();
    const capture = { session_id: newId('session'), step_id: 'doc', artefact_id: artefact, kind: 'back' as const };
    expect(domainEvents.captureStored(capture).id).toBe(`evt_${artefact}`);
    expect(domainEvents.faceFramesStored({ session_id: capture.session_id, step_id: 'face', artefact_id: artefact }).id).toBe(
      `evt_${artefact}`,
    );

    const data = sessionData();
    const event = domainEvents.sessionTransition('verification_session.canceled', data);
    expect(event.id).toBe(eventId(data.account_id, data.session.id, 'verification_session.canceled'));
    expect(domainEvents.sessionTransition('verification_session.canceled', data).id).toBe(event.id);
    expect(domainEvents.sessionTransition('verification_session.expired', data).id).not.toBe(event.id);
  });

  it('when an event arrives with a type outside the closed set, then the envelope schema refuses it', () => {
    expect(DOMAIN_EVENT_TYPES).toEqual(expect.arrayContaining([...Object.values(DOMAIN_EVENTS), ...SESSION_EVENT_TYPES]));
    expect(DOMAIN_EVENT_TYPES).toHaveLength(Object.values(DOMAIN_EVENTS).length + SESSION_EVENT_TYPES.length);
    const event = domainEvents.accountStatusChanged({ account_id: newId('account'), status: 'active' });
    expect(DomainEventSchema.safeParse({ ...event, type: 'account.deleted' }).success).toBe(false);
  });

  it('when a checked id is given its prefixed type, then only its own prefix is accepted', () => {
    const id = newId('webhookEndpoint');
    expect(asId('webhookEndpoint', id)).toBe(id);
    expect(() => asId('webhookDelivery', id)).toThrow(RangeError);
  });
});
