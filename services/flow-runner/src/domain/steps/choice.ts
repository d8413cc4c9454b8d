import type { Step } from '@idv/contracts';
import { openOptions, type FlowState } from '../engine';
import type { Messages } from '../i18n';
import type { StepView } from '../view';

type ChoiceStep = Extract<Step, { type: 'choice' }>;

/**
 * The `choice` step is a composite: its page lists the options (each one a step module of its own) and
 * its verdict follows from theirs (see `applyOutcome` in the engine): approved once `min` options
 * passed, rejected as soon as `min` can no longer be reached; options not taken are `skipped`.
 */
export function renderChoice(choice: ChoiceStep, state: FlowState, t: Messages): StepView {
  const open = new Set(openOptions(choice, state).map((o) => o.id));
  return {
    title: t.choiceTitle,
    body: {
      kind: 'choice',
      optionFailed: state.notice === 'option_failed',
      min: choice.min,
      options: choice.options.map((option) => ({
        id: option.id,
        type: option.type,
        open: open.has(option.id),
        passed: (state.steps[option.id]?.status ?? 'pending') === 'passed',
      })),
    },
  };
}
