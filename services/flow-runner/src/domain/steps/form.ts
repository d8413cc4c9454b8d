import { FormFieldSchema, hasUnstorableCharacters, type FormField, type FormStepSchema } from '@idv/contracts';
import { z } from 'zod';
import type { Messages } from '../i18n';
import type { FormFeedback } from '../view';
import type { StepModule } from './types';

type FormStep = z.infer<typeof FormStepSchema>;

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

function isCalendarDate(value: string): boolean {
  if (!DATE_PATTERN.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** The input schema of one field, built from its definition (as parsed by the contracts' FormFieldSchema). */
function fieldSchema(field: FormField, t: Messages): z.ZodType<string> {
  const text = z
    .string()
    .optional()
    .transform((v) => (v ?? '').trim());
  switch (field.type) {
    case 'text':
      return text.superRefine((v, ctx) => {
        if (!v) {
          if (field.required) ctx.addIssue({ code: 'custom', message: t.errRequired });
          return;
        }
        if (field.minLength !== undefined && v.length < field.minLength)
          ctx.addIssue({ code: 'custom', message: t.errTooShort(field.minLength) });
        if (v.length > field.maxLength) ctx.addIssue({ code: 'custom', message: t.errTooLong(field.maxLength) });
        if (hasUnstorableCharacters(v)) ctx.addIssue({ code: 'custom', message: t.errCharacters });
      });
    case 'select':
      return text.superRefine((v, ctx) => {
        if (!v) {
          if (field.required) ctx.addIssue({ code: 'custom', message: t.errRequired });
          return;
        }
        if (!field.options.some((option) => option.value === v)) ctx.addIssue({ code: 'custom', message: t.errOption });
      });
    case 'date':
      return text.superRefine((v, ctx) => {
        if (!v) {
          if (field.required) ctx.addIssue({ code: 'custom', message: t.errRequired });
          return;
        }
        if (!isCalendarDate(v)) ctx.addIssue({ code: 'custom', message: t.errDate });
        else if (field.min && v < field.min) ctx.addIssue({ code: 'custom', message: t.errDateMin(field.min) });
        else if (field.max && v > field.max) ctx.addIssue({ code: 'custom', message: t.errDateMax(field.max) });
      });
    case 'number':
      return text
        .superRefine((v, ctx) => {
          if (!v) {
            if (field.required) ctx.addIssue({ code: 'custom', message: t.errRequired });
            return;
          }
          // Accept the Argentine decimal comma as well as the point.
          const n = Number(v.replace(',', '.'));
          if (!/^-?\d+([.,]\d+)?$/.test(v) || !Number.isFinite(n)) ctx.addIssue({ code: 'custom', message: t.errNumber });
          else if (field.integer && !Number.isInteger(n)) ctx.addIssue({ code: 'custom', message: t.errInteger });
          else if (field.min !== undefined && n < field.min) ctx.addIssue({ code: 'custom', message: t.errMin(field.min) });
          else if (field.max !== undefined && n > field.max) ctx.addIssue({ code: 'custom', message: t.errMax(field.max) });
        })
        .transform((v) => (v ? String(Number(v.replace(',', '.'))) : ''));
    case 'checkbox':
      return z
        .string()
        .optional()
        .superRefine((v, ctx) => {
          if (field.required && v === undefined) ctx.addIssue({ code: 'custom', message: t.errCheckbox });
        })
        .transform((v) => (v === undefined ? 'false' : 'true'));
  }
}

type BuiltForm = { schema: z.ZodObject<Record<string, z.ZodType<string>>>; fields: readonly FormField[] };

/** Built schemas of the forms seen lately, per language: building one costs more than using it. */
const BUILT_FORMS_KEPT = 256;
const builtForms = new WeakMap<Messages, Map<string, BuiltForm>>();

/**
 * The server-side schema of a form step's submission: one entry per configured field, each built from
 * the field definition re-parsed with the same `FormFieldSchema` that validated the configuration.
 * Frozen configurations repeat, so the schema of a given field list is built once per language.
 */
export function buildFormSchema(fields: readonly unknown[], t: Messages): BuiltForm {
  const key = JSON.stringify(fields);
  let cache = builtForms.get(t);
  if (!cache) builtForms.set(t, (cache = new Map<string, BuiltForm>()));
  const kept = cache.get(key);
  if (kept) return kept;
  const parsed = fields.map((field) => FormFieldSchema.parse(field));
  const shape: Record<string, z.ZodType<string>> = {};
  for (const field of parsed) shape[field.name] = fieldSchema(field, t);
  const built = { schema: z.object(shape), fields: parsed };
  if (cache.size >= BUILT_FORMS_KEPT) cache.delete(cache.keys().next().value as string);
  cache.set(key, built);
  return built;
}

/** Validates a submission: the string-to-string data to keep, or a message per failing field. */
export function validateForm(
  fields: readonly unknown[],
  input: Record<string, string>,
  t: Messages,
): { ok: true; data: Record<string, string> } | { ok: false; errors: Record<string, string> } {
  const { schema } = buildFormSchema(fields, t);
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, data: result.data };
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const name = String(issue.path[0] ?? '');
    errors[name] ??= issue.message;
  }
  return { ok: false, errors };
}

export const formStep: StepModule<FormStep> = {
  type: 'form',
  render: (ctx, feedback: FormFeedback) => {
    const { fields } = buildFormSchema(ctx.step.fields, ctx.t);
    return { title: ctx.step.title ?? ctx.t.formTitle, body: { kind: 'form', fields, feedback } };
  },
  accept: (ctx, input) => {
    const result = validateForm(ctx.step.fields, input, ctx.t);
    if (!result.ok) {
      const values: Record<string, string> = {};
      for (const field of ctx.step.fields) values[field.name] = input[field.name] ?? '';
      return { kind: 'stay', feedback: { errors: result.errors, values } };
    }
    return { kind: 'passed', formData: result.data };
  },
};
