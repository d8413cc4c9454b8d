import type { Step } from '@idv/contracts';
import type { FlowState } from '../engine';
import { openOptions } from '../engine';
import type { Messages } from '../i18n';
import { html, type SafeHtml, type StepView } from '../view';

type ChoiceStep = Extract<Step, { type: 'choice' }>;

/**
 * The `choice` step is a composite: its page lists the options (each one a step module of its own) and
 * its verdict follows from theirs (see `applyOutcome` in the engine): approved once `min` options
 * passed, rejected as soon as `min` can no longer be reached; options not taken are `skipped`.
 */
export function renderChoice(choice: ChoiceStep, state: FlowState, t: Messages, form: (inner: SafeHtml) => SafeHtml): StepView {
  const open = new Set(openOptions(choice, state).map((o) => o.id));
  const items = choice.options.map((option) => {
    const status = state.steps[option.id]?.status ?? 'pending';
    const label = t.optionLabel(option.type);
    if (open.has(option.id)) {
      return html`<li><button type="submit" name="option" value="${option.id}" class="option">${label}</button></li>`;
    }
    return html`<li><span class="option done">${label}: ${status === 'passed' ? t.choicePassed : t.choiceFailed}</span></li>`;
  });
  return {
    title: t.choiceTitle,
    body: html`${state.notice === 'option_failed' ? html`<p class="alert" role="alert">${t.choiceOptionFailed}</p>` : ''}
      <p>${t.choiceIntro(choice.min)}</p>
      ${form(
        html`<ul class="options">
          ${items}
        </ul>`,
      )}`,
  };
}
