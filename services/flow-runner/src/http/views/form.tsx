import type { FormField } from '@idv/contracts';
import type { Messages } from '../../domain/i18n';
import type { StepBody } from '../../domain/view';
import { ErrorSummary, FlowForm, type FormTarget } from './common';

function Field(props: { field: FormField; t: Messages; value: string | undefined; error: string | undefined }) {
  const { field, t, value, error } = props;
  const id = `f-${field.name}`;
  const errorId = `e-${field.name}`;
  const hint = field.required ? t.required : t.optional;
  const errorLine = error ? (
    <p class="field-error" id={errorId}>
      {error}
    </p>
  ) : null;
  const common = {
    id,
    name: field.name,
    ...(field.required ? { required: true, 'aria-required': 'true' as const } : {}),
    ...(error ? { 'aria-describedby': errorId, 'aria-invalid': 'true' as const } : {}),
  };
  const label = (
    <label for={id}>
      {field.label} <span class="hint">{hint}</span>
    </label>
  );
  let inner;
  switch (field.type) {
    case 'text':
      inner = (
        <>
          {label}
          {errorLine}
          <input
            type="text"
            {...common}
            value={value ?? ''}
            maxLength={field.maxLength}
            {...(field.minLength ? { minLength: field.minLength } : {})}
          />
        </>
      );
      break;
    case 'select':
      inner = (
        <>
          {label}
          {errorLine}
          <select {...common}>
            <option value="">{t.selectPlaceholder}</option>
            {field.options.map((option) => (
              <option value={option.value} selected={option.value === value}>
                {option.label}
              </option>
            ))}
          </select>
        </>
      );
      break;
    case 'date':
      inner = (
        <>
          {label}
          {errorLine}
          <input
            type="date"
            {...common}
            value={value ?? ''}
            {...(field.min ? { min: field.min } : {})}
            {...(field.max ? { max: field.max } : {})}
          />
        </>
      );
      break;
    case 'number':
      inner = (
        <>
          {label}
          {errorLine}
          <input
            type="number"
            {...common}
            value={value ?? ''}
            inputMode={field.integer ? 'numeric' : 'decimal'}
            step={field.integer ? '1' : 'any'}
            {...(field.min !== undefined ? { min: field.min } : {})}
            {...(field.max !== undefined ? { max: field.max } : {})}
          />
        </>
      );
      break;
    case 'checkbox':
      inner = (
        <>
          {errorLine}
          <div class="checkbox">
            <input type="checkbox" {...common} value="on" checked={value === 'true' || value === 'on'} />
            <label for={id}>
              {field.label}
              {field.required ? (
                <>
                  {' '}
                  <span class="hint">{hint}</span>
                </>
              ) : null}
            </label>
          </div>
        </>
      );
      break;
  }
  return <div class={`field${error ? ' has-error' : ''}`}>{inner}</div>;
}

export function FormView(props: { t: Messages; to: FormTarget; body: Extract<StepBody, { kind: 'form' }> }) {
  const { t, body } = props;
  return (
    <>
      <ErrorSummary title={t.fixErrors} errors={body.feedback.errors} />
      <FlowForm to={props.to}>
        {body.fields.map((field) => (
          <Field field={field} t={t} value={body.feedback.values?.[field.name]} error={body.feedback.errors?.[field.name]} />
        ))}
        <div class="actions">
          <button type="submit" name="action" value="submit" class="primary">
            {t.continue}
          </button>
        </div>
      </FlowForm>
    </>
  );
}
