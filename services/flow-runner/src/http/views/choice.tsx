import type { Messages } from '../../domain/i18n';
import type { StepBody } from '../../domain/view';
import { FlowForm, type FormTarget } from './common';

export function ChoiceView(props: { t: Messages; to: FormTarget; body: Extract<StepBody, { kind: 'choice' }> }) {
  const { t, body } = props;
  return (
    <>
      {body.optionFailed ? (
        <p class="alert" role="alert">
          {t.choiceOptionFailed}
        </p>
      ) : null}
      <p>{t.choiceIntro(body.min)}</p>
      <FlowForm to={props.to}>
        <ul class="options">
          {body.options.map((option) => (
            <li>
              {option.open ? (
                <button type="submit" name="option" value={option.id} class="option">
                  {t.optionLabel(option.type)}
                </button>
              ) : (
                <span class="option done">
                  {t.optionLabel(option.type)}: {option.passed ? t.choicePassed : t.choiceFailed}
                </span>
              )}
            </li>
          ))}
        </ul>
      </FlowForm>
    </>
  );
}
