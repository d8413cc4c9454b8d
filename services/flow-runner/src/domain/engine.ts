import type { ArtefactId, DocumentData, FlowConfig, ResolveSessionBody, Step, StepResult } from '@idv/contracts';
import type { HandoverState } from './handover';
import { REASON_CODES, type ReasonCode } from './reason-codes';
import type { ConsentStep, RunnableStep, StepOutcome, StepState } from './steps/types';

type ChoiceStep = Extract<Step, { type: 'choice' }>;
type TopStep = Step | ConsentStep;

/** The person's progress, stored as JSON in the flow record. */
export interface FlowState {
  steps: Record<string, StepState>;
  /** For each choice step, the option the person is doing now (null: the option list is showing). */
  activeOption: Record<string, string | null>;
  /** A one-shot message for the next page (e.g. the chosen option failed). */
  notice: 'option_failed' | null;
  formData: Record<string, string>;
  verified: { email?: string; phone?: string };
  /** What a passed document step read (sent as `result.document` when the project opts in). */
  document?: DocumentData;
  reasons: ReasonCode[];
  /** Hand-over codes offered and bindings moved from (continuing on another device, `handover.ts`). */
  handover?: HandoverState;
}

export const CONSENT: ConsentStep = { id: 'consent', type: 'consent' };

export function initialState(): FlowState {
  return { steps: {}, activeOption: {}, notice: null, formData: {}, verified: {}, reasons: [] };
}

export function topSteps(config: FlowConfig): TopStep[] {
  return [CONSENT, ...config.steps];
}

export type Position =
  | { kind: 'step'; step: RunnableStep; choice: ChoiceStep | null; index: number; total: number }
  | { kind: 'choice'; step: ChoiceStep; index: number; total: number }
  | { kind: 'finished'; outcome: 'approved' | 'rejected' };

const statusOf = (state: FlowState, id: string) => state.steps[id]?.status ?? 'pending';

/** Where the person is: the first top-level step not passed (a failed one finishes the flow rejected). */
export function position(config: FlowConfig, state: FlowState): Position {
  const steps = topSteps(config);
  for (const [index, step] of steps.entries()) {
    const status = statusOf(state, step.id);
    if (status === 'failed') return { kind: 'finished', outcome: 'rejected' };
    if (status === 'passed' || status === 'skipped') continue;
    if (step.type === 'choice') {
      const active = state.activeOption[step.id];
      const option = active ? step.options.find((o) => o.id === active) : undefined;
      if (option) return { kind: 'step', step: option, choice: step, index, total: steps.length };
      return { kind: 'choice', step, index, total: steps.length };
    }
    return { kind: 'step', step, choice: null, index, total: steps.length };
  }
  return { kind: 'finished', outcome: 'approved' };
}

/** Options of a choice the person may still pick: neither passed nor failed. */
export function openOptions(choice: ChoiceStep, state: FlowState) {
  return choice.options.filter((o) => statusOf(state, o.id) === 'pending');
}

export function chooseOption(state: FlowState, choice: ChoiceStep, optionId: string): boolean {
  if (!openOptions(choice, state).some((o) => o.id === optionId)) return false;
  state.activeOption[choice.id] = optionId;
  state.notice = null;
  return true;
}

export function leaveOption(state: FlowState, choice: ChoiceStep): void {
  state.activeOption[choice.id] = null;
}

/**
 * Applies a step's outcome. A passed option that brings its choice to `min` passes the choice and
 * marks the options not taken `skipped`; a failed option ends the choice (and the flow) only when
 * `min` can no longer be reached, otherwise the person picks another option.
 */
export function applyOutcome(state: FlowState, step: RunnableStep, choice: ChoiceStep | null, outcome: StepOutcome): void {
  if (outcome.kind === 'stay') return;
  const current = state.steps[step.id] ?? { status: 'pending' };
  if (outcome.kind === 'passed') {
    state.steps[step.id] = { ...current, status: 'passed' };
    Object.assign(state.formData, outcome.formData ?? {});
    Object.assign(state.verified, outcome.verified ?? {});
    if (outcome.document) state.document = outcome.document;
  } else {
    state.steps[step.id] = { ...current, status: 'failed', reason: outcome.reason };
    state.reasons.push(outcome.reason);
  }
  if (!choice) return;
  state.activeOption[choice.id] = null;
  const passed = choice.options.filter((o) => statusOf(state, o.id) === 'passed').length;
  const open = openOptions(choice, state).length;
  if (passed >= choice.min) {
    state.steps[choice.id] = { status: 'passed' };
    for (const option of openOptions(choice, state)) state.steps[option.id] = { status: 'skipped' };
  } else if (passed + open < choice.min) {
    state.steps[choice.id] = { status: 'failed', reason: REASON_CODES.choiceNotSatisfied };
    state.reasons.push(REASON_CODES.choiceNotSatisfied);
    for (const option of openOptions(choice, state)) state.steps[option.id] = { status: 'skipped' };
  } else if (outcome.kind === 'failed') {
    // The choice can still be satisfied: this option's failure does not count against the session.
    state.reasons.pop();
    state.notice = 'option_failed';
  }
}

const verdictOf = (status: StepState['status'] | undefined): StepResult['verdict'] => {
  switch (status) {
    case 'passed':
      return 'approved';
    case 'failed':
      return 'rejected';
    case 'skipped':
      return 'skipped';
    case 'pending':
    case undefined:
      return 'not_reached';
  }
};

/** `result.steps`: every step in order, options right after their choice. */
export function stepResults(config: FlowConfig, state: FlowState): StepResult[] {
  const results: StepResult[] = [];
  for (const step of topSteps(config)) {
    results.push({ id: step.id, type: step.type, verdict: verdictOf(state.steps[step.id]?.status) });
    if (step.type === 'choice') {
      for (const option of step.options) {
        results.push({ id: option.id, type: option.type, verdict: verdictOf(state.steps[option.id]?.status) });
      }
    }
  }
  return results;
}

/** The body for the sessions service once the flow finished (opt-in filtering is the sessions service's). */
export function resolution(config: FlowConfig, state: FlowState, outcome: 'approved' | 'rejected'): ResolveSessionBody {
  const verified = Object.fromEntries(Object.entries(state.verified).filter(([, v]) => v !== undefined));
  return {
    outcome,
    reason_codes: outcome === 'approved' ? [] : [...new Set(state.reasons)],
    steps: stepResults(config, state),
    ...(state.document ? { document: state.document } : {}),
    ...(Object.keys(verified).length > 0 ? { verified_channels: verified } : {}),
    ...(Object.keys(state.formData).length > 0 ? { form_data: state.formData } : {}),
  };
}

/**
 * The accepted front of the last passed `document_ar` step before `stepId` (top-level steps, and the
 * options of choices, in order): its portrait is what a face step compares with. Null when none passed.
 */
export function documentFrontBefore(record: { config: FlowConfig; state: FlowState }, stepId: string): ArtefactId | null {
  let front: ArtefactId | null = null;
  const consider = (step: { id: string; type: string }) => {
    const state = record.state.steps[step.id];
    const capture = state?.document?.captures.front;
    if (step.type === 'document_ar' && state?.status === 'passed' && capture?.status === 'accepted') front = capture.artefactId;
  };
  for (const step of record.config.steps) {
    if (step.id === stepId) return front;
    if (step.type === 'choice') {
      if (step.options.some((option) => option.id === stepId)) return front;
      step.options.forEach(consider);
    } else consider(step);
  }
  return front;
}

/** Test mode with a code step somewhere in the flow: the banner tells the test code. */
export const hasCodeStep = (config: FlowConfig) =>
  config.steps
    .flatMap((step) => (step.type === 'choice' ? step.options : [step]))
    .some((step) => step.type === 'otp_email' || step.type === 'otp_whatsapp');
