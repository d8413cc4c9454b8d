import { z } from 'zod';
import type { FieldProblem } from './i18n';
import { passwordProblem } from './passwords';

/** A submitted form: each field once, as text (a repeated or missing field reads as empty). */
export type FormFields = Record<string, string>;

export function formFields(body: unknown): FormFields {
  const fields: FormFields = {};
  if (!body || typeof body !== 'object') return fields;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') fields[name] = value;
  }
  return fields;
}

/** A field sent once or several times (checkboxes), as its list of texts. */
export function formList(body: unknown, name: string): string[] {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

export type FieldErrors = Partial<Record<string, FieldProblem>>;

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const emailSchema = z.email();

export function textField(value: string | undefined, max: number): { value: string; problem?: FieldProblem } {
  const trimmed = (value ?? '').trim();
  if (!trimmed) return { value: trimmed, problem: 'required' };
  if ([...trimmed].length > max) return { value: trimmed, problem: 'too_long' };
  if (CONTROL_CHARACTERS.test(trimmed)) return { value: trimmed, problem: 'invalid_characters' };
  return { value: trimmed };
}

function email(value: string | undefined): { value: string; problem?: FieldProblem } {
  const checked = textField(value, 254);
  if (checked.problem) return checked;
  return emailSchema.safeParse(checked.value).success ? checked : { value: checked.value, problem: 'invalid_email' };
}

export interface SignUpInput {
  organisation: string;
  name: string;
  email: string;
  password: string;
}

export function parseSignUp(
  fields: FormFields,
  commonPasswords: ReadonlySet<string>,
): { input: SignUpInput; errors: FieldErrors } {
  const organisation = textField(fields.organisation, 200);
  const name = textField(fields.name, 200);
  const address = email(fields.email);
  const password = fields.password ?? '';
  const errors: FieldErrors = {};
  if (organisation.problem) errors.organisation = organisation.problem;
  if (name.problem) errors.name = name.problem;
  if (address.problem) errors.email = address.problem;
  const weak = password ? passwordProblem(password, address.value, commonPasswords) : 'required';
  if (weak) errors.password = weak;
  else if (CONTROL_CHARACTERS.test(password)) errors.password = 'invalid_characters';
  return { input: { organisation: organisation.value, name: name.value, email: address.value, password }, errors };
}

export interface SignInInput {
  email: string;
  password: string;
}

export function parseSignIn(fields: FormFields): { input: SignInInput; errors: FieldErrors } {
  const address = email(fields.email);
  const password = fields.password ?? '';
  const errors: FieldErrors = {};
  if (address.problem) errors.email = address.problem;
  if (!password) errors.password = 'required';
  else if ([...password].length > 128) errors.password = 'too_long';
  return { input: { email: address.value, password }, errors };
}
