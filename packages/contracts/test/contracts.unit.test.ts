import {
  CaptureStoredDataSchema,
  CreateSessionBodySchema,
  FlowConfigSchema,
  configVersionId,
  derivedArtefactId,
  eventId,
  isArtefactId,
  isId,
  newArtefactId,
  newId,
  parseConfigVersion,
  problem,
  scopeSatisfies,
} from '../src';

describe('ids', () => {
  it('when an id is generated, then it carries its prefix and a ULID', () => {
    const id = newId('session');
    expect(id).toMatch(/^vs_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isId('session', id)).toBe(true);
    expect(isId('project', id)).toBe(false);
  });

  it('when an artefact id is made for a capture or derived from one, then the one artefact id pattern accepts it', () => {
    const capture = newArtefactId();
    const derived = [derivedArtefactId(capture, 'selfie'), derivedArtefactId(capture, 'portrait')];

    expect(capture).toMatch(/^art_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(derived).toEqual([`${capture}_selfie`, `${capture}_portrait`]);
    for (const id of [capture, ...derived]) expect(isArtefactId(id)).toBe(true);
    expect(
      CaptureStoredDataSchema.safeParse({ session_id: newId('session'), step_id: 'doc', artefact_id: capture, kind: 'front' })
        .success,
    ).toBe(true);
    // A job names its session by its id: not a session id, not a job.
    expect(
      CaptureStoredDataSchema.safeParse({ session_id: 'vs_1', step_id: 'doc', artefact_id: capture, kind: 'front' }).success,
    ).toBe(false);
  });

  it('when an artefact id is altered, then it is not an artefact id, and nothing is derived from a derived one', () => {
    const capture = newArtefactId();

    for (const id of [
      `${capture}_other`,
      `${capture}_selfie_portrait`,
      `${capture}_`,
      capture.toLowerCase(),
      capture.slice(0, -1),
      `${capture}0`,
      `x${capture}`,
      `${capture}\n`,
      capture.replace('art_', 'vs_'),
    ]) {
      expect(isArtefactId(id)).toBe(false);
    }
    expect(() => derivedArtefactId(derivedArtefactId(capture, 'selfie'), 'portrait')).toThrow(RangeError);
    expect(
      CaptureStoredDataSchema.safeParse({ session_id: newId('session'), step_id: 'doc', artefact_id: 'art_1', kind: 'front' })
        .success,
    ).toBe(false);
  });

  it('when the same logical event is named twice, then the event id is the same; another type, another id', () => {
    const a = eventId('acc_1', 'vs_1', 'verification_session.approved');
    expect(a).toBe(eventId('acc_1', 'vs_1', 'verification_session.approved'));
    expect(a).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(eventId('acc_1', 'vs_1', 'verification_session.completed')).not.toBe(a);
    expect(eventId('acc_2', 'vs_1', 'verification_session.approved')).not.toBe(a);
  });

  it('when config versions are formatted, then they have 8 digits and parse back', () => {
    expect(configVersionId(1)).toBe('cfg_00000001');
    expect(parseConfigVersion('cfg_00000042')).toBe(42);
    expect(parseConfigVersion('cfg_42')).toBeNull();
    expect(() => configVersionId(0)).toThrow(RangeError);
  });
});

describe('scopes', () => {
  it('when a key has write on a resource, then it may read that resource but nothing else', () => {
    expect(scopeSatisfies(['sessions:write'], 'sessions:read')).toBe(true);
    expect(scopeSatisfies(['sessions:write'], 'sessions:write')).toBe(true);
    expect(scopeSatisfies(['sessions:write'], 'webhooks:read')).toBe(false);
    expect(scopeSatisfies(['sessions:write'], 'usage:read')).toBe(false);
    expect(scopeSatisfies(['sessions:read'], 'sessions:write')).toBe(false);
    expect(scopeSatisfies(['webhooks:write'], 'webhooks:read')).toBe(true);
    expect(scopeSatisfies([], 'usage:read')).toBe(false);
  });
});

describe('problems', () => {
  it('when a problem is built, then title equals code and type points at the code', () => {
    const body = problem('insufficient_scope', 'missing', { required_scope: 'usage:read' });
    expect(body).toMatchObject({
      title: 'insufficient_scope',
      code: 'insufficient_scope',
      status: 403,
      required_scope: 'usage:read',
    });
    expect(body.type.endsWith('#insufficient_scope')).toBe(true);
  });
});

describe('request bodies', () => {
  it('when expires_in_hours is omitted, then it defaults to 24; out of bounds is refused', () => {
    const project_id = newId('project');
    expect(CreateSessionBodySchema.parse({ project_id }).expires_in_hours).toBe(24);
    expect(CreateSessionBodySchema.safeParse({ project_id, expires_in_hours: 0 }).success).toBe(false);
    expect(CreateSessionBodySchema.safeParse({ project_id, expires_in_hours: 169 }).success).toBe(false);
    expect(CreateSessionBodySchema.safeParse({ project_id, unknown: 1 }).success).toBe(false);
  });
});

describe('flow configuration', () => {
  const valid = {
    steps: [
      {
        id: 'contact',
        type: 'choice',
        min: 1,
        options: [
          { id: 'mail', type: 'otp_email' },
          { id: 'phone', type: 'otp_whatsapp' },
        ],
      },
      { id: 'extra', type: 'form', fields: [{ name: 'occupation', type: 'text', label: 'Ocupación', required: true }] },
    ],
    options: { webhookEvents: ['verification_session.approved'] },
  };

  it('when the configuration is valid, then it parses with option defaults', () => {
    const parsed = FlowConfigSchema.parse(valid);
    expect(parsed.options.documentData).toBe(false);
  });

  it.each([
    ['an unknown step type', { steps: [{ id: 'x', type: 'selfie' }] }],
    ['an unknown parameter', { steps: [{ id: 'x', type: 'otp_email', retries: 3 }] }],
    [
      'duplicate step ids',
      {
        steps: [
          { id: 'x', type: 'otp_email' },
          { id: 'x', type: 'otp_whatsapp' },
        ],
      },
    ],
    [
      'a duplicate id inside a choice',
      { steps: [{ id: 'x', type: 'choice', min: 1, options: [{ id: 'x', type: 'otp_email' }] }] },
    ],
    [
      'a choice whose min exceeds its options',
      { steps: [{ id: 'c', type: 'choice', min: 3, options: [{ id: 'a', type: 'otp_email' }] }] },
    ],
    ['the reserved consent id', { steps: [{ id: 'consent', type: 'otp_email' }] }],
    ['an unknown webhook event', { steps: [{ id: 'x', type: 'otp_email' }], options: { webhookEvents: ['nope'] } }],
  ])('when the configuration has %s, then it is refused', (_label, config) => {
    expect(FlowConfigSchema.safeParse(config).success).toBe(false);
  });
});
