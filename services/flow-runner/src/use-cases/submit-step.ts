import type { SessionId } from '@idv/contracts';
import { applyOutcome, chooseOption, leaveOption, position } from '../domain/engine';
import type { Locale } from '../domain/i18n';
import type { SubmissionAdmission, SubmitResult } from '../domain/pages';
import type { FlowRecord, StagedCapture, SubmittedFiles } from '../domain/ports';
import { sameSecret, sameToken } from '../domain/secrets';
import { ConcurrentSubmission, moduleFor, type StepOutcome } from '../domain/steps';
import { registryPending } from '../domain/steps/document';
import { notBoundPage, SUBMISSION_ATTEMPTS, type FlowCore } from './flow-core';

/**
 * Whether a submission's body may be read at all: only a browser holding this flow's binding may
 * upload, and only under the page's CSRF token (checked on the body's first field, before any file).
 * The submission itself checks both again on the flow as stored.
 */
export async function admitSubmission(
  core: FlowCore,
  sessionId: SessionId,
  bindingSecret: string | undefined,
): Promise<SubmissionAdmission> {
  const record = await core.options.store.find(sessionId);
  if (!record) return { kind: 'status', page: 'not_found', testMode: false };
  if (!sameSecret(bindingSecret, record.bindingHash)) {
    return { kind: 'status', page: notBoundPage(record, bindingSecret), testMode: false };
  }
  const { csrfToken } = record;
  return { kind: 'admitted', acceptsCsrf: (presented) => sameToken(presented, csrfToken) };
}

/**
 * Applies one submission. It is decided on the flow as stored and takes effect only if stored over
 * that version: submissions of one flow on this replica are queued, and one that still lost a race
 * (another replica) is run again on the newer flow. Nothing leaves the flow before its decision is
 * stored: a code is sent after its send is counted, the session is resolved after the verdict is.
 */
export async function submitStep(
  core: FlowCore,
  sessionId: SessionId,
  bindingSecret: string | undefined,
  input: Record<string, string>,
  locale: Locale,
  files: SubmittedFiles = {},
  handoverToken?: string,
): Promise<SubmitResult> {
  return core.submissionsOfFlow.run(sessionId, async () => {
    for (let attempt = 1; attempt <= SUBMISSION_ATTEMPTS; attempt++) {
      const record = await core.options.store.find(sessionId);
      if (!record) return { kind: 'status', page: 'not_found', testMode: false };
      if (!sameSecret(bindingSecret, record.bindingHash)) {
        return { kind: 'status', page: notBoundPage(record, bindingSecret), testMode: false };
      }
      const testMode = record.mode === 'test';
      if (!sameToken(input._csrf, record.csrfToken)) return { kind: 'status', page: 'csrf', testMode, sessionId };
      if (record.status !== 'active') return { kind: 'redirect', sessionId };
      try {
        const asked = core.now();
        const result = await apply(core, record, input, locale, files);
        // Every redirect of apply() follows the sessions service's confirmation, asked for at `asked`.
        if (result.kind === 'redirect') core.confirmedForNextView.add(sessionId, asked);
        await core.offerHandover(record, result, handoverToken);
        return result;
      } catch (error) {
        if (!(error instanceof ConcurrentSubmission)) throw error;
      }
    }
    // Still racing after every attempt: nothing of this submission was stored; the page shows
    // wherever the flow is now.
    return { kind: 'redirect', sessionId };
  });
}

async function apply(
  core: FlowCore,
  record: FlowRecord,
  input: Record<string, string>,
  locale: Locale,
  files: SubmittedFiles,
): Promise<SubmitResult> {
  const { sessionId } = record;
  // Every submission is activity (it puts off abandonment), and a session that ended meanwhile
  // shows why, never the flow.
  if ((await core.options.sessions.activity(sessionId)) === 'terminal') return core.endedPage(record);
  const staged: StagedCapture[] = [];
  const persist = core.persister(record, staged);

  const at = position(record.config, record.state);
  if (at.kind === 'finished') return core.deliver(record, at.outcome);
  // A stale page (back button, double submit) posts for another step: show the current one instead.
  if (input.step !== at.step.id) return { kind: 'redirect', sessionId };
  if (at.kind === 'choice') {
    if (input.option) chooseOption(record.state, at.step, input.option);
    await persist();
    return { kind: 'redirect', sessionId };
  }
  // A document waiting on the registry stays the current step until the registry decides it.
  if (at.choice && input.action === 'leave_option' && !registryPending(record.state.steps[at.step.id])) {
    leaveOption(record.state, at.choice);
    await persist();
    return { kind: 'redirect', sessionId };
  }

  const stepState = (record.state.steps[at.step.id] ??= { status: 'pending' });
  const ctx = core.context(record, at.step, locale, stepState, persist, staged, files);
  const outcome: StepOutcome = await moduleFor(at.step).accept(ctx, input);
  applyOutcome(record.state, at.step, at.choice, outcome);
  // The decision is stored first: a submission that lost the race resolves nothing.
  await persist();
  const next = position(record.config, record.state);
  if (next.kind === 'finished') return core.deliver(record, next.outcome);
  if (outcome.kind === 'stay' && outcome.feedback && Object.keys(outcome.feedback).length > 0) {
    return core.render(record, locale, outcome.feedback);
  }
  return { kind: 'redirect', sessionId };
}
