import type { SessionId } from '@idv/contracts';
import { applyOutcome, position } from '../domain/engine';
import type { RegistryCheckChange, RegistryCheckState } from '../domain/ports';
import { REASON_CODES } from '../domain/reason-codes';
import type { RegistryAnswer } from '../domain/registry';
import type { StepOutcome } from '../domain/steps';
import { registryPending } from '../domain/steps/document';
import { SUBMISSION_ATTEMPTS, type FlowCore } from './flow-core';

/** What a registry check of this flow should do now, from the flow as stored. */
export async function registryCheckState(core: FlowCore, sessionId: SessionId, stepId: string): Promise<RegistryCheckState> {
  const record = await core.options.store.find(sessionId);
  if (!record || record.status !== 'active') return { kind: 'gone' };
  const registry = record.state.steps[stepId]?.document?.registry;
  if (!registry) return { kind: 'gone' };
  if (registry.status === 'pending') return { kind: 'ask', query: registry.query, mode: record.mode };
  return { kind: 'decided' };
}

/**
 * The registry's answer reaches the flow, decided on the flow as stored and queued behind its
 * submissions like a reading. A definite answer, or an unavailable one with no retry left, decides
 * the step once (the decision and the check's new status are one transaction); an unavailable one
 * with time left changes nothing (`retry`). A check already decided stays as it was.
 */
export async function applyRegistryAnswer(
  core: FlowCore,
  sessionId: SessionId,
  stepId: string,
  answer: RegistryAnswer,
  attempts: number,
  retryLeft: boolean,
): Promise<'retry' | 'decided' | 'gone'> {
  return core.submissionsOfFlow.run(sessionId, async () => {
    for (let attempt = 1; attempt <= SUBMISSION_ATTEMPTS; attempt++) {
      const record = await core.options.store.find(sessionId);
      if (!record || record.status !== 'active') return 'gone';
      const state = record.state.steps[stepId];
      const registry = state?.document?.registry;
      if (!state || !registry) return 'gone';
      if (registry.status !== 'pending') return 'decided';
      if (answer.kind === 'unavailable' && retryLeft) return 'retry';
      const at = position(record.config, record.state);
      if (at.kind !== 'step' || at.step.id !== stepId) return 'gone';
      registry.status = answer.kind;
      if (answer.kind === 'mismatch') registry.fields = answer.fields;
      const reason =
        answer.kind === 'match'
          ? undefined
          : answer.kind === 'unavailable'
            ? REASON_CODES.documentRegistryUnavailable
            : REASON_CODES.documentRegistryMismatch;
      state.document!.checks = [
        ...(state.document!.checks ?? []),
        {
          name: 'registry',
          verdict: reason ? (answer.kind === 'unavailable' ? 'inconclusive' : 'failed') : 'passed',
          ...(reason ? { reason } : {}),
          ...(answer.kind === 'mismatch' && answer.fields.length > 0 ? { fields: [...answer.fields] } : {}),
        },
      ];
      const outcome: StepOutcome = reason ? { kind: 'failed', reason } : { kind: 'passed', document: registry.document };
      applyOutcome(record.state, at.step, at.choice, outcome);
      const decided: RegistryCheckChange = { kind: 'decide', stepId, attempts, outcome: answer.kind };
      if (await core.options.store.update(record, [], decided)) return 'decided';
    }
    throw new Error(`the flow ${sessionId} kept changing while a registry answer was applied`);
  });
}

/**
 * After a registry decision: a finished flow's verdict goes to the sessions service; a flow that
 * goes on releases its hold on abandonment (the person has the next step to do). Throws when the
 * sessions service cannot be told; the runner comes back to it.
 */
export async function settleRegistryCheck(core: FlowCore, sessionId: SessionId): Promise<void> {
  await core.submissionsOfFlow.run(sessionId, async () => {
    const record = await core.options.store.find(sessionId);
    if (!record || record.status !== 'active') return;
    const at = position(record.config, record.state);
    if (at.kind === 'finished') {
      await core.deliver(record, at.outcome);
      return;
    }
    if (at.kind === 'step' && registryPending(record.state.steps[at.step.id])) return;
    await core.options.sessions.hold(sessionId, null);
  });
}
