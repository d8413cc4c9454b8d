import { applyEdit, configFromFields, newStep, sendsNoVerdict, type JsonObject } from '../src/domain/flow-editor';
import { problemsOf } from '../src/domain/flow-problems';

const STARTER: JsonObject = {
  steps: [
    { id: 'datos', type: 'form', fields: [{ name: 'nombre', type: 'text', label: 'Nombre', required: true }] },
    { id: 'correo', type: 'otp_email' },
    {
      id: 'eleccion',
      type: 'choice',
      min: 1,
      options: [
        { id: 'a', type: 'otp_email' },
        { id: 'b', type: 'otp_whatsapp' },
      ],
    },
  ],
  options: { documentData: false, verifiedChannels: true, formData: true, evidenceLinks: false, webhookEvents: [] },
};

describe("the editor's fields, read back as the published JSON", () => {
  it('reads steps, fields, options and sets in the order of their indices, whatever the order sent', () => {
    const config = configFromFields([
      ['steps.1.type', 'document_ar'],
      ['steps.1.id', 'dni'],
      ['steps.1.documents~passport', 'on'],
      ['steps.1.maxAttempts', '4'],
      ['steps.0.type', 'form'],
      ['steps.0.id', 'datos'],
      ['steps.0.fields.0.type', 'select'],
      ['steps.0.fields.0.name', 'provincia'],
      ['steps.0.fields.0.label', 'Provincia'],
      ['steps.0.fields.0.options.1.value', 'b'],
      ['steps.0.fields.0.options.1.label', 'B'],
      ['steps.0.fields.0.options.0.value', 'a'],
      ['steps.0.fields.0.options.0.label', 'A'],
      ['options.webhookEvents~verification_session.approved', 'on'],
      ['options.formData', 'on'],
    ]);
    expect(config).toEqual({
      steps: [
        {
          id: 'datos',
          type: 'form',
          fields: [
            {
              name: 'provincia',
              type: 'select',
              label: 'Provincia',
              required: false,
              options: [
                { value: 'a', label: 'A' },
                { value: 'b', label: 'B' },
              ],
            },
          ],
        },
        { id: 'dni', type: 'document_ar', documents: ['passport'], registryCheck: false, maxAttempts: 4 },
      ],
      options: {
        documentData: false,
        verifiedChannels: false,
        formData: true,
        evidenceLinks: false,
        webhookEvents: ['verification_session.approved'],
      },
    });
  });

  it('keeps a number typed wrong as text, for the schema to name it, and leaves an empty one out', () => {
    const config = configFromFields([
      ['steps.0.type', 'face_liveness'],
      ['steps.0.id', 'cara'],
      ['steps.0.maxAttempts', 'tres'],
      ['steps.0.compareWithDocument', ''],
    ]);
    expect(config.steps).toEqual([{ id: 'cara', type: 'face_liveness', allowUpload: false, maxAttempts: 'tres' }]);
    expect(problemsOf(config).get('steps.0.maxAttempts')).toMatch(/number/);
  });
});

describe("the editor's buttons", () => {
  it('moves a step up, down and by drag and drop, and removes one', () => {
    const up = applyEdit(STARTER, 'up@steps.1')!;
    expect((up.steps as { id: string }[]).map((step) => step.id)).toEqual(['correo', 'datos', 'eleccion']);
    const dropped = applyEdit(STARTER, 'move@steps.2>0')!;
    expect((dropped.steps as { id: string }[]).map((step) => step.id)).toEqual(['eleccion', 'datos', 'correo']);
    const removed = applyEdit(STARTER, 'remove@steps.2.options.0')!;
    expect((removed.steps as { options?: { id: string }[] }[])[2]!.options!.map((option) => option.id)).toEqual(['b']);
    expect(STARTER.steps).toHaveLength(3); // a copy is changed, not the configuration given
  });

  it('refuses what would fall off a list or name a type, list or action that does not exist', () => {
    for (const op of [
      'up@steps.0',
      'down@steps.2',
      'move@steps.0>3',
      'remove@steps.3',
      'add:choice@steps.2.options',
      'add:consent@steps',
      'field:file@steps.0.fields',
      'option@steps.0.fields',
      'add:form@options',
      'remove@options.webhookEvents.0',
      'grow@steps.0',
      '',
    ]) {
      expect([op, applyEdit(STARTER, op)]).toEqual([op, null]);
    }
  });

  it('gives a new step an id no other step has', () => {
    const twice = applyEdit(applyEdit(STARTER, 'add:otp_email@steps')!, 'add:otp_email@steps')!;
    const ids = (twice.steps as { id: string }[]).map((step) => step.id);
    expect(ids.slice(3)).toEqual(['codigo_correo', 'codigo_correo_2']);
    expect(newStep('document_ar', STARTER)).toMatchObject({ id: 'documento', documents: ['dni', 'passport', 'licence'] });
  });

  it('warns when no verdict event is ticked', () => {
    expect(sendsNoVerdict(STARTER)).toBe(true);
    expect(sendsNoVerdict({ ...STARTER, options: { webhookEvents: ['verification_session.completed'] } })).toBe(false);
  });
});
