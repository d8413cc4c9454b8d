/**
 * The flow editor's model, shared by the server (which renders the form and applies its buttons) and the
 * editor's client bundle (which checks as you type): a configuration as the form's fields name it, and
 * back. It knows no HTTP and no DOM.
 *
 * Every input is named by its path in the published JSON (`steps.0.fields.1.label`); a set of fixed
 * members is one checkbox per member (`steps.0.documents~dni`, `options.webhookEvents~verification_session.approved`).
 * A list item always carries at least one input (a step and a form field their hidden `type`, a select
 * option its `value`), so the list is read back from the indices present.
 */
import { DOCUMENT_KINDS, SESSION_EVENT_TYPES } from '@idv/contracts';

export const STEP_TYPES = ['form', 'document_ar', 'face_liveness', 'otp_email', 'otp_whatsapp', 'choice'] as const;
export type EditorStepType = (typeof STEP_TYPES)[number];
export const LEAF_STEP_TYPES = STEP_TYPES.filter((type) => type !== 'choice');
export const FIELD_TYPES = ['text', 'select', 'date', 'number', 'checkbox'] as const;
export type EditorFieldType = (typeof FIELD_TYPES)[number];
export const OPTION_FLAGS = ['documentData', 'verifiedChannels', 'formData', 'evidenceLinks'] as const;
export { DOCUMENT_KINDS, SESSION_EVENT_TYPES };

/** The events a flow's verdict reaches the integrator by: a configuration with none of them ticked gets a warning. */
export const VERDICT_EVENTS: readonly string[] = [
  'verification_session.approved',
  'verification_session.rejected',
  'verification_session.completed',
];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A number typed in a field: empty is left out, a number is a number, anything else stays text for the schema to refuse. */
function numberOf(text: string | undefined): number | string | undefined {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** The indices of a list's items among the submitted names, in order. */
function indicesOf(values: ReadonlyMap<string, string>, list: string): number[] {
  const found = new Set<number>();
  const prefix = `${list}.`;
  for (const name of values.keys()) {
    if (!name.startsWith(prefix)) continue;
    const index = name.slice(prefix.length).split('.')[0]!;
    if (/^\d{1,3}$/.test(index)) found.add(Number(index));
  }
  return [...found].sort((a, b) => a - b);
}

function setNumber(target: JsonObject, key: string, text: string | undefined): void {
  const value = numberOf(text);
  if (value !== undefined) target[key] = value;
}

function fieldFrom(values: ReadonlyMap<string, string>, at: string): JsonObject {
  const type = values.get(`${at}.type`) ?? '';
  const field: JsonObject = {
    name: values.get(`${at}.name`) ?? '',
    type,
    label: values.get(`${at}.label`) ?? '',
    required: values.has(`${at}.required`),
  };
  if (type === 'text') {
    setNumber(field, 'minLength', values.get(`${at}.minLength`));
    setNumber(field, 'maxLength', values.get(`${at}.maxLength`));
  } else if (type === 'select') {
    field.options = indicesOf(values, `${at}.options`).map((index) => ({
      value: values.get(`${at}.options.${index}.value`) ?? '',
      label: values.get(`${at}.options.${index}.label`) ?? '',
    }));
  } else if (type === 'date') {
    for (const bound of ['min', 'max']) {
      const text = (values.get(`${at}.${bound}`) ?? '').trim();
      if (text) field[bound] = text;
    }
  } else if (type === 'number') {
    setNumber(field, 'min', values.get(`${at}.min`));
    setNumber(field, 'max', values.get(`${at}.max`));
    field.integer = values.has(`${at}.integer`);
  }
  return field;
}

function stepFrom(values: ReadonlyMap<string, string>, at: string): JsonObject {
  const type = values.get(`${at}.type`) ?? '';
  const step: JsonObject = { id: values.get(`${at}.id`) ?? '', type };
  switch (type) {
    case 'document_ar':
      step.documents = DOCUMENT_KINDS.filter((kind) => values.has(`${at}.documents~${kind}`));
      step.registryCheck = values.has(`${at}.registryCheck`);
      setNumber(step, 'maxAttempts', values.get(`${at}.maxAttempts`));
      break;
    case 'face_liveness': {
      // Left out, it follows the steps before it (a document step first: compared); the form says so.
      const compare = values.get(`${at}.compareWithDocument`);
      if (compare === 'true' || compare === 'false') step.compareWithDocument = compare === 'true';
      step.allowUpload = values.has(`${at}.allowUpload`);
      setNumber(step, 'maxAttempts', values.get(`${at}.maxAttempts`));
      break;
    }
    case 'form': {
      const title = (values.get(`${at}.title`) ?? '').trim();
      if (title) step.title = title;
      step.fields = indicesOf(values, `${at}.fields`).map((index) => fieldFrom(values, `${at}.fields.${index}`));
      break;
    }
    case 'choice':
      setNumber(step, 'min', values.get(`${at}.min`));
      step.options = indicesOf(values, `${at}.options`).map((index) => stepFrom(values, `${at}.options.${index}`));
      break;
    default:
      break;
  }
  return step;
}

/** The configuration the editor's fields describe, as the published JSON (the schema judges it, not this). */
export function configFromFields(entries: Iterable<readonly [string, string]>): JsonObject {
  const values = new Map<string, string>();
  for (const [name, value] of entries) if (!values.has(name)) values.set(name, value);
  const options: JsonObject = {};
  for (const flag of OPTION_FLAGS) options[flag] = values.has(`options.${flag}`);
  options.webhookEvents = SESSION_EVENT_TYPES.filter((event) => values.has(`options.webhookEvents~${event}`));
  const privacy = (values.get('options.privacyPolicyUrl') ?? '').trim();
  if (privacy) options.privacyPolicyUrl = privacy;
  return { steps: indicesOf(values, 'steps').map((index) => stepFrom(values, `steps.${index}`)), options };
}

const NEW_STEP_IDS: Record<EditorStepType, string> = {
  form: 'formulario',
  document_ar: 'documento',
  face_liveness: 'rostro',
  otp_email: 'codigo_correo',
  otp_whatsapp: 'codigo_whatsapp',
  choice: 'eleccion',
};

/** A new step of `type`, with an id not yet used in `config`. */
export function newStep(type: EditorStepType, config: JsonObject): JsonObject {
  const used = new Set(stepIds(config));
  const base = NEW_STEP_IDS[type];
  let id = base;
  for (let n = 2; used.has(id); n += 1) id = `${base}_${n}`;
  switch (type) {
    case 'form':
      return { id, type, fields: [newField('text', [])] };
    case 'document_ar':
      return { id, type, documents: [...DOCUMENT_KINDS], registryCheck: false, maxAttempts: 3 };
    case 'face_liveness':
      return { id, type, allowUpload: false, maxAttempts: 3 };
    case 'choice':
      return { id, type, min: 1, options: [{ id: `${id}_correo`, type: 'otp_email' }] };
    case 'otp_email':
    case 'otp_whatsapp':
      return { id, type };
  }
}

/** A new form field of `type`, named apart from `fields`. */
export function newField(type: EditorFieldType, fields: readonly Json[]): JsonObject {
  const used = new Set(fields.filter(isObject).map((field) => field.name));
  let name = 'campo';
  for (let n = 2; used.has(name); n += 1) name = `campo_${n}`;
  const field: JsonObject = { name, type, label: '', required: false };
  if (type === 'select') field.options = [{ value: 'opcion_1', label: '' }];
  if (type === 'number') field.integer = false;
  return field;
}

function stepIds(config: JsonObject): string[] {
  const steps = Array.isArray(config.steps) ? config.steps : [];
  return steps
    .filter(isObject)
    .flatMap((step) => [
      typeof step.id === 'string' ? step.id : '',
      ...(Array.isArray(step.options) && step.type === 'choice'
        ? step.options.filter(isObject).map((option) => (typeof option.id === 'string' ? option.id : ''))
        : []),
    ]);
}

/** The list at a path of `config` (`steps`, `steps.2.fields`, …), or null when there is none. */
function listAt(config: JsonObject, path: string): Json[] | null {
  let at: Json = config;
  for (const segment of path.split('.')) {
    if (Array.isArray(at) && /^\d+$/.test(segment)) at = at[Number(segment)] ?? null;
    else if (isObject(at)) at = at[segment] ?? null;
    else return null;
  }
  return Array.isArray(at) ? at : null;
}

/** A list path and an index within it (`steps.2.fields.1` → `steps.2.fields`, 1). */
function splitItem(path: string): { list: string; index: number } | null {
  const match = /^(.+)\.(\d{1,3})$/.exec(path);
  return match ? { list: match[1]!, index: Number(match[2]) } : null;
}

const LIST_PATH =
  /^(steps|steps\.\d{1,3}\.(fields|options)|steps\.\d{1,3}\.fields\.\d{1,3}\.options|steps\.\d{1,3}\.options\.\d{1,3}\.fields|steps\.\d{1,3}\.options\.\d{1,3}\.fields\.\d{1,3}\.options)$/;

/**
 * The change a button of the editor asks for, applied to a copy of `config`; null when the button names
 * nothing there (an old page, a hand-made request). Buttons:
 * - `add:<step type>@<list>`: a step at the end of `steps` or of a choice's `options`;
 * - `field:<field type>@<list>`: a form field; `option@<list>`: a select's option;
 * - `remove@<item>`, `up@<item>`, `down@<item>`; `move@<item>><index>` (drag and drop).
 */
export function applyEdit(config: JsonObject, op: string): JsonObject | null {
  const match = /^([a-z]+)(?::([a-z_]+))?@([a-z0-9.]+)(?:>(\d{1,3}))?$/.exec(op);
  if (!match) return null;
  const [, action, kind, path, target] = match as unknown as [string, string, string | undefined, string, string | undefined];
  const next = JSON.parse(JSON.stringify(config)) as JsonObject;
  if (action === 'add' || action === 'field' || action === 'option') {
    if (!LIST_PATH.test(path)) return null;
    const list = listAt(next, path);
    if (!list || list.length >= 100) return null;
    if (action === 'add') {
      const allowed: readonly string[] = path === 'steps' ? STEP_TYPES : LEAF_STEP_TYPES;
      if (!kind || !allowed.includes(kind) || !/(^steps|\.options)$/.test(path)) return null;
      list.push(newStep(kind as EditorStepType, next));
    } else if (action === 'field') {
      if (!kind || !(FIELD_TYPES as readonly string[]).includes(kind) || !path.endsWith('.fields')) return null;
      list.push(newField(kind as EditorFieldType, list));
    } else {
      if (!/\.fields\.\d{1,3}\.options$/.test(path)) return null;
      list.push({ value: `opcion_${list.length + 1}`, label: '' });
    }
    return next;
  }
  const item = splitItem(path);
  if (!item || !LIST_PATH.test(item.list)) return null;
  const list = listAt(next, item.list);
  if (!list || item.index >= list.length) return null;
  const to =
    action === 'up'
      ? item.index - 1
      : action === 'down'
        ? item.index + 1
        : action === 'move' && target !== undefined
          ? Number(target)
          : action === 'remove'
            ? -2
            : -3;
  if (to === -3) return null;
  const [moved] = list.splice(item.index, 1);
  if (to === -2) return next;
  if (to < 0 || to > list.length) return null;
  list.splice(to, 0, moved!);
  return next;
}

/** The draft's text as the editor reads it: its configuration, or null when it is no JSON object to edit. */
export function editableConfig(text: string): JsonObject | null {
  try {
    const parsed = JSON.parse(text) as unknown;
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** Whether a configuration sends none of the verdict's events (the most frequent cause of missing webhooks). */
export function sendsNoVerdict(config: JsonObject): boolean {
  const options = isObject(config.options) ? config.options : {};
  const events = Array.isArray(options.webhookEvents) ? options.webhookEvents : [];
  return !events.some((event) => typeof event === 'string' && VERDICT_EVENTS.includes(event));
}
