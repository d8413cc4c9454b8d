import type { Account, ProjectOverview } from '@idv/contracts';
import type { EditorMessages } from '../../domain/editor-messages';
import {
  DOCUMENT_KINDS,
  FIELD_TYPES,
  LEAF_STEP_TYPES,
  OPTION_FLAGS,
  SESSION_EVENT_TYPES,
  STEP_TYPES,
  sendsNoVerdict,
  type Json,
  type JsonObject,
} from '../../domain/flow-editor';
import type { Locale, Messages } from '../../domain/i18n';
import { Flash, renderPage } from './layout';
import { DraftActions, RenameProject } from './projects';

export const EDITOR_SCRIPT_PATH = '/assets/editor.js';

const objectOf = (value: Json | undefined): JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
const listOf = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);
const textOf = (value: Json | undefined): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/** What every control of the editor needs: the words, the problems by path, whether it may change anything. */
interface Ctx {
  m: EditorMessages;
  problems: ReadonlyMap<string, string>;
  readOnly: boolean;
}

const describedBy = (...ids: (string | false)[]) => {
  const list = ids.filter(Boolean).join(' ');
  return list ? { 'aria-describedby': list } : {};
};

function ProblemOf(props: { path: string; ctx: Ctx }) {
  const problem = props.ctx.problems.get(props.path);
  return (
    <p class="field-error" id={`e-${props.path}`} {...(problem ? {} : { hidden: true })}>
      {problem ?? ''}
    </p>
  );
}

function TextInput(props: {
  path: string;
  label: string;
  value: Json | undefined;
  ctx: Ctx;
  hint?: string;
  inputMode?: 'numeric' | 'decimal' | 'url';
  maxLength?: number;
}) {
  const { path, ctx } = props;
  const problem = ctx.problems.has(path);
  return (
    <div class={problem ? 'field invalid' : 'field'} data-path={path}>
      <label for={`f-${path}`}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`h-${path}`}>
          {props.hint}
        </p>
      ) : null}
      <ProblemOf path={path} ctx={ctx} />
      <input
        id={`f-${path}`}
        name={path}
        type="text"
        value={textOf(props.value)}
        maxLength={props.maxLength ?? 500}
        spellcheck={false}
        autocomplete="off"
        readOnly={ctx.readOnly}
        {...(props.inputMode ? { inputMode: props.inputMode } : {})}
        {...describedBy(props.hint ? `h-${path}` : false, `e-${path}`)}
        {...(problem ? { 'aria-invalid': 'true' } : {})}
      />
    </div>
  );
}

function Checkbox(props: { path: string; label: string; checked: boolean; ctx: Ctx; hint?: string }) {
  const { path, ctx } = props;
  return (
    <div class="check" data-path={path}>
      <input
        id={`f-${path}`}
        name={path}
        type="checkbox"
        value="on"
        checked={props.checked}
        disabled={ctx.readOnly}
        {...describedBy(props.hint ? `h-${path}` : false)}
      />
      <label for={`f-${path}`}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`h-${path}`}>
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

/** Up, down and remove for one item of a list: the buttons every list of the editor has, drag and drop or not. */
function ItemActions(props: { path: string; index: number; count: number; name: string; ctx: Ctx }) {
  const { m, readOnly } = props.ctx;
  if (readOnly) return null;
  return (
    <p class="item-actions">
      <button type="submit" name="op" value={`up@${props.path}`} class="secondary" disabled={props.index === 0}>
        {m.moveUp}
        <span class="visually-hidden"> ({props.name})</span>
      </button>{' '}
      <button type="submit" name="op" value={`down@${props.path}`} class="secondary" disabled={props.index === props.count - 1}>
        {m.moveDown}
        <span class="visually-hidden"> ({props.name})</span>
      </button>{' '}
      <button type="submit" name="op" value={`remove@${props.path}`} class="secondary danger">
        {m.remove}
        <span class="visually-hidden"> ({props.name})</span>
      </button>
    </p>
  );
}

function SelectOptions(props: { path: string; options: Json[]; ctx: Ctx }) {
  const { m, readOnly } = props.ctx;
  return (
    <fieldset class="nested" data-path={props.path}>
      <legend>{m.selectOptions}</legend>
      <ProblemOf path={props.path} ctx={props.ctx} />
      <ol class="options">
        {props.options.map((option, index) => {
          const at = `${props.path}.${index}`;
          const item = objectOf(option);
          return (
            <li class="option" data-item={at}>
              <TextInput path={`${at}.value`} label={`${m.optionValue} ${index + 1}`} value={item.value} ctx={props.ctx} />
              <TextInput path={`${at}.label`} label={`${m.optionLabel} ${index + 1}`} value={item.label} ctx={props.ctx} />
              <ItemActions
                path={at}
                index={index}
                count={props.options.length}
                name={`${m.optionValue} ${index + 1}`}
                ctx={props.ctx}
              />
            </li>
          );
        })}
      </ol>
      {readOnly ? null : (
        <button type="submit" name="op" value={`option@${props.path}`} class="secondary">
          {m.addSelectOption}
        </button>
      )}
    </fieldset>
  );
}

function FormFieldEditor(props: { path: string; field: JsonObject; index: number; count: number; ctx: Ctx }) {
  const { path, field, ctx } = props;
  const { m } = ctx;
  const type = textOf(field.type);
  const typeName = (m.fieldTypes as Record<string, string>)[type] ?? type;
  const title = m.fieldNumber(props.index + 1, typeName);
  return (
    <li class="form-field" data-item={path}>
      <fieldset class="nested">
        <legend>{title}</legend>
        <input type="hidden" name={`${path}.type`} value={type} />
        <ProblemOf path={path} ctx={ctx} />
        <TextInput path={`${path}.name`} label={m.fieldName} hint={m.fieldNameHint} value={field.name} ctx={ctx} maxLength={40} />
        <TextInput path={`${path}.label`} label={m.fieldLabel} value={field.label} ctx={ctx} maxLength={200} />
        <Checkbox path={`${path}.required`} label={m.required} checked={field.required === true} ctx={ctx} />
        {type === 'text' ? (
          <>
            <TextInput path={`${path}.minLength`} label={m.minLength} value={field.minLength} ctx={ctx} inputMode="numeric" />
            <TextInput path={`${path}.maxLength`} label={m.maxLength} value={field.maxLength} ctx={ctx} inputMode="numeric" />
          </>
        ) : null}
        {type === 'select' ? <SelectOptions path={`${path}.options`} options={listOf(field.options)} ctx={ctx} /> : null}
        {type === 'date' ? (
          <>
            <TextInput path={`${path}.min`} label={m.dateMin} value={field.min} ctx={ctx} />
            <TextInput path={`${path}.max`} label={m.dateMax} value={field.max} ctx={ctx} />
          </>
        ) : null}
        {type === 'number' ? (
          <>
            <TextInput path={`${path}.min`} label={m.min} value={field.min} ctx={ctx} inputMode="decimal" />
            <TextInput path={`${path}.max`} label={m.max} value={field.max} ctx={ctx} inputMode="decimal" />
            <Checkbox path={`${path}.integer`} label={m.integer} checked={field.integer === true} ctx={ctx} />
          </>
        ) : null}
        <ItemActions path={path} index={props.index} count={props.count} name={title} ctx={ctx} />
      </fieldset>
    </li>
  );
}

function MaxAttempts(props: { path: string; step: JsonObject; ctx: Ctx }) {
  const { m } = props.ctx;
  return (
    <TextInput
      path={`${props.path}.maxAttempts`}
      label={m.maxAttempts}
      hint={m.maxAttemptsHint}
      value={props.step.maxAttempts}
      ctx={props.ctx}
      inputMode="numeric"
    />
  );
}

function StepBody(props: { path: string; step: JsonObject; ctx: Ctx }) {
  const { path, step, ctx } = props;
  const { m } = ctx;
  const type = textOf(step.type);
  switch (type) {
    case 'document_ar': {
      const documents = listOf(step.documents === undefined ? [...DOCUMENT_KINDS] : step.documents);
      return (
        <>
          <fieldset class="nested" data-path={`${path}.documents`}>
            <legend>{m.documents}</legend>
            <ProblemOf path={`${path}.documents`} ctx={ctx} />
            {DOCUMENT_KINDS.map((kind) => (
              <Checkbox
                path={`${path}.documents~${kind}`}
                label={m.documentKinds[kind]}
                checked={documents.includes(kind)}
                ctx={ctx}
              />
            ))}
          </fieldset>
          <Checkbox
            path={`${path}.registryCheck`}
            label={m.registryCheck}
            hint={m.registryCheckHint}
            checked={step.registryCheck === true}
            ctx={ctx}
          />
          <MaxAttempts path={path} step={step} ctx={ctx} />
        </>
      );
    }
    case 'face_liveness': {
      const compare = step.compareWithDocument === true ? 'true' : step.compareWithDocument === false ? 'false' : '';
      return (
        <>
          <div class="field" data-path={`${path}.compareWithDocument`}>
            <label for={`f-${path}.compareWithDocument`}>{m.compareWithDocument}</label>
            <ProblemOf path={`${path}.compareWithDocument`} ctx={ctx} />
            <select id={`f-${path}.compareWithDocument`} name={`${path}.compareWithDocument`} disabled={ctx.readOnly}>
              <option value="" selected={compare === ''}>
                {m.compareAuto}
              </option>
              <option value="true" selected={compare === 'true'}>
                {m.compareYes}
              </option>
              <option value="false" selected={compare === 'false'}>
                {m.compareNo}
              </option>
            </select>
          </div>
          <Checkbox
            path={`${path}.allowUpload`}
            label={m.allowUpload}
            hint={m.allowUploadHint}
            checked={step.allowUpload === true}
            ctx={ctx}
          />
          <MaxAttempts path={path} step={step} ctx={ctx} />
        </>
      );
    }
    case 'form': {
      const fields = listOf(step.fields);
      return (
        <>
          <TextInput path={`${path}.title`} label={m.formTitle} value={step.title} ctx={ctx} maxLength={200} />
          <fieldset class="nested" data-path={`${path}.fields`}>
            <legend>{m.fields}</legend>
            <ProblemOf path={`${path}.fields`} ctx={ctx} />
            <ol class="fields">
              {fields.map((field, index) => (
                <FormFieldEditor
                  path={`${path}.fields.${index}`}
                  field={objectOf(field)}
                  index={index}
                  count={fields.length}
                  ctx={ctx}
                />
              ))}
            </ol>
            {ctx.readOnly ? null : (
              <p class="add-buttons">
                {FIELD_TYPES.map((fieldType) => (
                  <button type="submit" name="op" value={`field:${fieldType}@${path}.fields`} class="secondary">
                    {m.addField(m.fieldTypes[fieldType])}
                  </button>
                ))}
              </p>
            )}
          </fieldset>
        </>
      );
    }
    case 'choice': {
      const options = listOf(step.options);
      return (
        <>
          <TextInput
            path={`${path}.min`}
            label={m.choiceMin}
            hint={m.choiceMinHint}
            value={step.min}
            ctx={ctx}
            inputMode="numeric"
          />
          <fieldset class="nested" data-path={`${path}.options`}>
            <legend>{m.choiceOptions}</legend>
            <ProblemOf path={`${path}.options`} ctx={ctx} />
            <ol class="steps">
              {options.map((option, index) => (
                <StepEditor
                  path={`${path}.options.${index}`}
                  step={objectOf(option)}
                  index={index}
                  count={options.length}
                  ctx={ctx}
                  nested
                />
              ))}
            </ol>
            {ctx.readOnly ? null : (
              <p class="add-buttons">
                {LEAF_STEP_TYPES.map((leaf) => (
                  <button type="submit" name="op" value={`add:${leaf}@${path}.options`} class="secondary">
                    {m.addChoiceOption(m.stepTypes[leaf])}
                  </button>
                ))}
              </p>
            )}
          </fieldset>
        </>
      );
    }
    default:
      return null;
  }
}

function StepEditor(props: { path: string; step: JsonObject; index: number; count: number; ctx: Ctx; nested?: boolean }) {
  const { path, step, ctx } = props;
  const { m } = ctx;
  const type = textOf(step.type);
  const typeName = (m.stepTypes as Record<string, string>)[type] ?? type;
  const title = props.nested ? m.optionNumber(props.index + 1, typeName) : m.stepNumber(props.index + 2, typeName);
  return (
    <li
      class={props.nested ? 'step nested-step' : 'step'}
      data-item={path}
      {...(props.nested ? {} : { 'data-draggable': 'true' })}
    >
      {props.nested || ctx.readOnly ? null : (
        // Shown by the editor's script, which drags the step by it; the buttons do the same without it.
        <span class="drag-handle" aria-hidden="true" hidden>
          ⠿
        </span>
      )}
      <fieldset>
        <legend>{title}</legend>
        <input type="hidden" name={`${path}.type`} value={type} />
        <ProblemOf path={path} ctx={ctx} />
        <ProblemOf path={`${path}.type`} ctx={ctx} />
        <TextInput path={`${path}.id`} label={m.stepId} hint={m.stepIdHint} value={step.id} ctx={ctx} maxLength={40} />
        <StepBody path={path} step={step} ctx={ctx} />
        <ItemActions path={path} index={props.index} count={props.count} name={title} ctx={ctx} />
      </fieldset>
    </li>
  );
}

function ProjectOptions(props: { options: JsonObject; ctx: Ctx; warnNoVerdict: boolean }) {
  const { options, ctx } = props;
  const { m } = ctx;
  const events = listOf(options.webhookEvents);
  return (
    <fieldset class="options-block">
      <legend>{m.projectOptions}</legend>
      {OPTION_FLAGS.map((flag) => (
        <Checkbox
          path={`options.${flag}`}
          label={m.optionFlags[flag].label}
          hint={m.optionFlags[flag].hint}
          checked={options[flag] === true}
          ctx={ctx}
        />
      ))}
      <fieldset class="nested" data-path="options.webhookEvents" aria-describedby="h-options.webhookEvents">
        <legend>{m.webhookEvents}</legend>
        <p class="hint" id="h-options.webhookEvents">
          {m.webhookEventsHint}
        </p>
        <p class="warning" id="no-verdict-warning" role="status" {...(props.warnNoVerdict ? {} : { hidden: true })}>
          {m.noVerdictWarning}
        </p>
        <ProblemOf path="options.webhookEvents" ctx={ctx} />
        {SESSION_EVENT_TYPES.map((event) => (
          <Checkbox path={`options.webhookEvents~${event}`} label={event} checked={events.includes(event)} ctx={ctx} />
        ))}
      </fieldset>
      <TextInput
        path="options.privacyPolicyUrl"
        label={m.privacyPolicyUrl}
        hint={m.privacyPolicyUrlHint}
        value={options.privacyPolicyUrl}
        ctx={ctx}
        inputMode="url"
      />
    </fieldset>
  );
}

/** The problems at the top: each linked to its input when the form has one, else named by its path. */
function ProblemSummary(props: { ctx: Ctx }) {
  const { m, problems } = props.ctx;
  return (
    <div
      class="error-summary"
      role="alert"
      id="problems"
      tabIndex={-1}
      data-one={m.problems(1)}
      data-many={m.problems(2).replace('2', '{n}')}
      {...(problems.size ? {} : { hidden: true })}
    >
      <p id="problems-title">{m.problems(problems.size)}</p>
      <ul id="problems-list">
        {[...problems].map(([path, message]) => (
          <li>
            <a href={`#f-${path}`}>
              <code>{path}</code>
            </a>
            : {message}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function editorPage(view: {
  locale: Locale;
  messages: Messages;
  editor: EditorMessages;
  csrfToken: string;
  account: Account;
  project: ProjectOverview;
  config: JsonObject | null;
  problems: ReadonlyMap<string, string>;
  canWrite: boolean;
  /** The try button's one effect (a double press starts one try). */
  nonce: string;
  notice?: string;
  alert?: string;
}): string {
  const { project, editor: m } = view;
  const p = view.messages.projects;
  const ctx: Ctx = { m, problems: view.problems, readOnly: !view.canWrite };
  const steps = listOf(view.config?.steps);
  return renderPage(
    {
      locale: view.locale,
      messages: view.messages,
      title: project.name,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'projects' },
      ...(view.canWrite && view.config ? { scripts: [EDITOR_SCRIPT_PATH] } : {}),
    },
    <>
      <p>
        <a href="/projects">← {p.title}</a>
      </p>
      <h1>{project.name}</h1>
      <p>
        <code class="id">{project.id}</code> · {p.pointers}: {project.test_version ?? p.unpublished} (
        {view.messages.keys.modes.test}) · {project.live_version ?? p.unpublished} ({view.messages.keys.modes.live}) ·{' '}
        <a href={`/projects/${project.id}/history`}>{p.history}</a>
      </p>
      <nav class="tabs" aria-label={p.draftTitle}>
        <a href={`/projects/${project.id}`} aria-current="page">
          {m.formView}
        </a>
        <a href={`/projects/${project.id}/json`}>{m.jsonView}</a>
      </nav>
      <Flash notice={view.notice} alert={view.alert} />
      {view.config === null ? (
        <p class="error-summary" role="alert">
          {m.notEditable}
        </p>
      ) : (
        <form
          method="post"
          action={`/projects/${project.id}/editor`}
          id="flow-editor"
          novalidate
          data-draft-url={`/projects/${project.id}/draft`}
        >
          <input type="hidden" name="_csrf" value={view.csrfToken} />
          <p class="lead">{m.lead}</p>
          {view.canWrite ? (
            <p class="actions">
              <button type="submit" name="then" value="save">
                {m.save}
              </button>{' '}
              <span
                id="autosave"
                role="status"
                data-saving={m.autosave.saving}
                data-saved={m.autosave.saved}
                data-failed={m.autosave.failed}
              ></span>
            </p>
          ) : null}
          <ProblemSummary ctx={ctx} />
          <p class="notice" id="no-problems" role="status" {...(view.problems.size ? { hidden: true } : {})}>
            {m.noProblems}
          </p>
          <h2>{m.steps}</h2>
          {view.canWrite ? (
            <p class="hint" id="drag-hint" hidden>
              {m.dragHint}
            </p>
          ) : null}
          <ProblemOf path="steps" ctx={ctx} />
          <ol class="steps" id="steps">
            <li class="step consent">
              <p>
                <strong>{view.editor.stepNumber(1, m.consentFirst)}</strong>
              </p>
            </li>
            {steps.map((step, index) => (
              <StepEditor path={`steps.${index}`} step={objectOf(step)} index={index} count={steps.length} ctx={ctx} />
            ))}
          </ol>
          {view.canWrite ? (
            <fieldset class="add-step">
              <legend>{m.addStep}</legend>
              <ul class="step-types">
                {STEP_TYPES.map((type) => (
                  <li>
                    <button
                      type="submit"
                      name="op"
                      value={`add:${type}@steps`}
                      class="secondary"
                      aria-describedby={`h-add-${type}`}
                    >
                      {m.addStepOf(m.stepTypes[type])}
                    </button>
                    <span class="hint" id={`h-add-${type}`}>
                      {m.stepTypeHints[type]}
                    </span>
                  </li>
                ))}
              </ul>
            </fieldset>
          ) : null}
          <ProjectOptions options={objectOf(view.config.options)} ctx={ctx} warnNoVerdict={sendsNoVerdict(view.config)} />
          {view.canWrite ? <DraftActions messages={view.messages} nonce={view.nonce} /> : null}
          <details class="json-preview">
            <summary>{m.jsonPreview}</summary>
            <pre id="json-preview" tabIndex={0}>
              {JSON.stringify(view.config, null, 2)}
            </pre>
          </details>
        </form>
      )}
      {view.canWrite ? <RenameProject project={project} csrfToken={view.csrfToken} messages={view.messages} /> : null}
    </>,
  );
}
