import { DOCUMENT_KINDS } from './document-kinds';
import { SESSION_EVENT_TYPES } from './event-types';

export { DOCUMENT_KINDS };
import { z } from './zod';

/**
 * The flow configuration a project publishes (docs/design.md "Flow configuration"). Every object is strict:
 * an unknown step type or parameter is a publication error, never silently ignored.
 */
const StepIdSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, 'must start with a lowercase letter and use a-z, 0-9, _ or - (max 40)')
  .refine((id) => id !== 'consent', 'the id "consent" is reserved for the platform consent step');

const FieldNameSchema = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'must be a lowercase identifier (max 40)');
const LabelSchema = z.string().min(1).max(200);
const IsoDateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

const FieldBase = { name: FieldNameSchema, label: LabelSchema, required: z.boolean().default(false) };

export const FormFieldSchema = z.discriminatedUnion('type', [
  z.strictObject({
    ...FieldBase,
    type: z.literal('text'),
    minLength: z.number().int().min(0).max(1000).optional(),
    maxLength: z.number().int().min(1).max(1000).default(200),
  }),
  z.strictObject({
    ...FieldBase,
    type: z.literal('select'),
    options: z
      .array(z.strictObject({ value: z.string().min(1).max(100), label: LabelSchema }))
      .min(1)
      .max(100),
  }),
  z.strictObject({ ...FieldBase, type: z.literal('date'), min: IsoDateSchema.optional(), max: IsoDateSchema.optional() }),
  z.strictObject({
    ...FieldBase,
    type: z.literal('number'),
    min: z.number().optional(),
    max: z.number().optional(),
    integer: z.boolean().default(false),
  }),
  z.strictObject({ ...FieldBase, type: z.literal('checkbox') }),
]);
export type FormField = z.infer<typeof FormFieldSchema>;

export const DocumentStepSchema = z.strictObject({
  id: StepIdSchema,
  type: z.literal('document_ar'),
  documents: z
    .array(z.enum(DOCUMENT_KINDS))
    .min(1)
    .default([...DOCUMENT_KINDS]),
  registryCheck: z.boolean().default(false),
  /** Captures of each side the person may try before the step fails with the last attempt's reason. */
  maxAttempts: z.number().int().min(1).max(5).default(3),
});
export const FaceStepSchema = z.strictObject({
  id: StepIdSchema,
  type: z.literal('face_liveness'),
  /**
   * Compare the live face with the portrait of the document read earlier in the flow. Left out, it is
   * filled in when the configuration is parsed (and so frozen at publication): true when a top-level
   * `document_ar` step precedes the face step, false otherwise (`applyStepDefaults`).
   */
  compareWithDocument: z.boolean().optional(),
  allowUpload: z.boolean().default(false),
  maxAttempts: z.number().int().min(1).max(5).default(3),
});
export const OtpEmailStepSchema = z.strictObject({ id: StepIdSchema, type: z.literal('otp_email') });
export const OtpWhatsappStepSchema = z.strictObject({ id: StepIdSchema, type: z.literal('otp_whatsapp') });
export const FormStepSchema = z.strictObject({
  id: StepIdSchema,
  type: z.literal('form'),
  title: z.string().max(200).optional(),
  fields: z.array(FormFieldSchema).min(1).max(50),
});

export const LeafStepSchema = z.discriminatedUnion('type', [
  DocumentStepSchema,
  FaceStepSchema,
  OtpEmailStepSchema,
  OtpWhatsappStepSchema,
  FormStepSchema,
]);
export type LeafStep = z.infer<typeof LeafStepSchema>;

export const ChoiceStepSchema = z.strictObject({
  id: StepIdSchema,
  type: z.literal('choice'),
  min: z.number().int().min(1),
  options: z.array(LeafStepSchema).min(1).max(10),
});

export const StepSchema = z.discriminatedUnion('type', [
  DocumentStepSchema,
  FaceStepSchema,
  OtpEmailStepSchema,
  OtpWhatsappStepSchema,
  FormStepSchema,
  ChoiceStepSchema,
]);
export type Step = z.infer<typeof StepSchema>;
export type StepType = Step['type'] | 'consent';

export const ProjectOptionsSchema = z.strictObject({
  documentData: z.boolean().default(false),
  verifiedChannels: z.boolean().default(false),
  formData: z.boolean().default(false),
  evidenceLinks: z.boolean().default(false),
  webhookEvents: z
    .array(z.enum(SESSION_EVENT_TYPES))
    .default([])
    .refine((events) => new Set(events).size === events.length, 'must not repeat an event type'),
  /**
   * The integrator's own privacy text (an https page): the consent step links to it beside what it says
   * the flow collects, why, and for how long.
   */
  privacyPolicyUrl: z
    .url({ protocol: /^https$/, hostname: z.regexes.domain })
    .max(500)
    .optional(),
});
export type ProjectOptions = z.infer<typeof ProjectOptionsSchema>;

export const FlowConfigSchema = z
  .strictObject({
    steps: z.array(StepSchema).min(1).max(20),
    options: ProjectOptionsSchema.default({
      documentData: false,
      verifiedChannels: false,
      formData: false,
      evidenceLinks: false,
      webhookEvents: [],
    }),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    const checkId = (id: string, path: (string | number)[]) => {
      if (seen.has(id)) ctx.addIssue({ code: 'custom', path, message: `duplicate step id "${id}"` });
      seen.add(id);
    };
    config.steps.forEach((step, i) => {
      checkId(step.id, ['steps', i, 'id']);
      if (step.type === 'choice') {
        if (step.min > step.options.length) {
          ctx.addIssue({
            code: 'custom',
            path: ['steps', i, 'min'],
            message: `min (${step.min}) exceeds the number of options (${step.options.length})`,
          });
        }
        step.options.forEach((option, j) => checkId(option.id, ['steps', i, 'options', j, 'id']));
      }
      if (step.type === 'form') {
        const names = new Set<string>();
        step.fields.forEach((field, j) => {
          if (names.has(field.name)) {
            ctx.addIssue({
              code: 'custom',
              path: ['steps', i, 'fields', j, 'name'],
              message: `duplicate field name "${field.name}"`,
            });
          }
          names.add(field.name);
        });
      }
    });
  })
  .transform(applyStepDefaults)
  .openapi('FlowConfig');
export type FlowConfig = z.infer<typeof FlowConfigSchema>;

/**
 * Defaults that depend on the steps around a step, applied where the configuration is parsed: at
 * publication (so the frozen version carries them) and again, unchanged, wherever it is read back.
 * A face step compares with the document when a top-level `document_ar` step comes before it; a
 * document step that is an option of a choice may not be taken, so it does not count.
 */
function applyStepDefaults<C extends { steps: z.infer<typeof StepSchema>[] }>(config: C): C {
  let documentBefore = false;
  const withDefault = <S extends z.infer<typeof LeafStepSchema>>(step: S): S =>
    step.type === 'face_liveness' && step.compareWithDocument === undefined
      ? { ...step, compareWithDocument: documentBefore }
      : step;
  const steps = config.steps.map((step) => {
    const next = step.type === 'choice' ? { ...step, options: step.options.map(withDefault) } : withDefault(step);
    if (step.type === 'document_ar') documentBefore = true;
    return next;
  });
  return { ...config, steps };
}

/** The consent step the platform always runs first; it cannot be configured or disabled. */
export const CONSENT_STEP = { id: 'consent', type: 'consent' } as const;
