import {
  toTimestamp,
  type DeviceClass,
  type FlowConfig,
  type Step,
  type TimelineCapture,
  type TimelineEntry,
  type TimelineKind,
} from '@idv/contracts';
import { position, topSteps, type FlowState, type Position } from './engine';
import { messages } from './i18n';
import type { RegistryCheckChange } from './ports';
import type { CaptureProblem, DocumentSide } from './steps/document-state';
import type { RunnableStep, StepState } from './steps/types';

/**
 * A session's timeline (the dashboard's session page), as the flow-runner records it: what a stored
 * change of the flow did, read from the state before and after it. Nothing is judged here: every entry
 * reports what the change stored (a capture staged, a reading applied, a code counted, a verdict), and it
 * is written with that change or not at all (`flow.repository.ts`). Entries carry no personal data: step
 * ids, capture kinds, channels, outcomes, reason codes and message keys, never what was read, typed or sent.
 */

/** What an entry says besides its kind, step and attempt (stored as the row's `detail`). */
export type TimelineDetail = Omit<TimelineEntry, 'id' | 'at' | 'kind' | 'step_id' | 'attempt'>;

/** An entry to write with the change it reports; the database gives it its id and time. */
export interface TimelineDraft {
  kind: TimelineKind;
  stepId?: string;
  attempt?: number;
  detail?: TimelineDetail;
}

/**
 * The class of the device a User-Agent names, for the timeline: the header itself (and the address) is
 * never kept. Tablets first (an Android tablet says "Android" without "Mobile"; an iPad says "iPad"
 * unless it asks for desktop pages, when it passes for a Mac), then phones, then desktop systems.
 */
export function deviceClass(userAgent: string | undefined | null): DeviceClass {
  const ua = userAgent?.trim() ?? '';
  if (ua === '') return 'unknown';
  if (/iPad|Tablet|PlayBook|Kindle|Silk\//i.test(ua)) return 'tablet';
  if (/Mobi|iPhone|iPod|Windows Phone|BlackBerry|BB10|Opera Mini/i.test(ua)) return 'phone';
  if (/Android/i.test(ua)) return 'tablet';
  if (/Windows NT|Macintosh|Mac OS X|X11|CrOS|Linux x86_64/i.test(ua)) return 'desktop';
  return 'unknown';
}

/** A flow just created by its link's first open: the link opened, and the first step (consent) started. */
export function openedTimeline(config: FlowConfig, state: FlowState, device: DeviceClass): TimelineDraft[] {
  return [{ kind: 'link_opened', detail: { device } }, ...startedAt(position(config, state))];
}

/** The flow moved to another device (a hand-over code opened there). */
export function handedOverTimeline(device: DeviceClass): TimelineDraft[] {
  return [{ kind: 'handed_over', detail: { device } }];
}

/** A registry call without a definite answer, asked again at `next` (`cause`: why, never what was asked). */
export function registryRetryTimeline(stepId: string, attempt: number, next: Date, cause: string | undefined): TimelineDraft[] {
  return [
    {
      kind: 'registry_check_attempted',
      stepId,
      attempt,
      detail: { outcome: 'unavailable', ...(cause ? { cause: cause.slice(0, 64) } : {}), retry_at: toTimestamp(next) },
    },
  ];
}

type ChoiceStep = Extract<Step, { type: 'choice' }>;

/**
 * What one stored change of the flow did: for each step in order, its activity (captures, readings,
 * codes, the registry) then its verdict; then the flow's own verdict when the change finished it; then
 * the step the person goes on to. `registry`: the registry check the change decided, for its attempt count.
 */
export function timelineOfChange(
  config: FlowConfig,
  before: FlowState,
  after: FlowState,
  registry?: RegistryCheckChange,
): TimelineDraft[] {
  const drafts: TimelineDraft[] = [];
  const was = position(config, before);
  const now = position(config, after);
  for (const step of topSteps(config)) {
    if (step.type !== 'choice') {
      drafts.push(...stepTimeline(step, before, after, now, registry));
      continue;
    }
    const options = step.options;
    const skipped = (option: RunnableStep) => after.steps[option.id]?.status === 'skipped';
    for (const option of options.filter((o) => !skipped(o))) drafts.push(...stepTimeline(option, before, after, now, registry));
    drafts.push(...verdictOf(step, before, after));
    for (const option of options.filter(skipped)) drafts.push(...stepTimeline(option, before, after, now, registry));
  }
  if (was.kind !== 'finished' && now.kind === 'finished') {
    drafts.push({
      kind: 'flow_decided',
      detail: { verdict: now.outcome, reason_codes: now.outcome === 'rejected' ? [...new Set(after.reasons)] : [] },
    });
  }
  if (now.kind !== 'finished' && (was.kind === 'finished' || was.step.id !== now.step.id)) drafts.push(...startedAt(now));
  return drafts;
}

function startedAt(at: Position): TimelineDraft[] {
  if (at.kind === 'finished') return [];
  return [{ kind: 'step_started', stepId: at.step.id, detail: { step_type: at.step.type } }];
}

function stepTimeline(
  step: RunnableStep,
  before: FlowState,
  after: FlowState,
  now: Position,
  registry: RegistryCheckChange | undefined,
): TimelineDraft[] {
  const was = before.steps[step.id];
  const is = after.steps[step.id];
  const told = { failed: failedMessageKey(is, now, after), ...(registry?.stepId === step.id ? { registry } : {}) };
  const activity =
    step.type === 'document_ar'
      ? documentTimeline(step.id, was, is, told)
      : step.type === 'face_liveness'
        ? faceTimeline(step.id, was, is, told.failed)
        : step.type === 'otp_email' || step.type === 'otp_whatsapp'
          ? codeTimeline(step.id, step.type === 'otp_email' ? 'email' : 'whatsapp', was, is)
          : [];
  return [...activity, ...verdictOf(step, before, after)];
}

function verdictOf(step: RunnableStep | ChoiceStep, before: FlowState, after: FlowState): TimelineDraft[] {
  const was = before.steps[step.id]?.status ?? 'pending';
  const is = after.steps[step.id];
  if (!is || is.status === was || is.status === 'pending') return [];
  const verdict = is.status === 'passed' ? 'approved' : is.status === 'failed' ? 'rejected' : 'skipped';
  return [
    {
      kind: 'step_decided',
      stepId: step.id,
      detail: { step_type: step.type, verdict, reason_codes: is.status === 'failed' && is.reason ? [is.reason] : [] },
    },
  ];
}

/**
 * What the person was shown when the step failed: the rejection page's reason when the flow ended, the
 * choice's "that option could not be completed" when the person picks another option.
 */
function failedMessageKey(state: StepState | undefined, now: Position, after: FlowState): string | undefined {
  if (state?.status !== 'failed' || !state.reason) return undefined;
  if (now.kind === 'finished') return `rejection.reasons.${state.reason}`;
  return after.notice === 'option_failed' ? 'choiceOptionFailed' : undefined;
}

const SIDES: readonly DocumentSide[] = ['front', 'back', 'front_angle'];
const DOCUMENT_PROBLEMS = messages('es').document.problems;

/** The key of what a refused side told the person (the step's own problems, or the checks against the front). */
function problemMessageKey(problem: CaptureProblem | undefined): string | undefined {
  if (problem === undefined) return undefined;
  return problem in DOCUMENT_PROBLEMS ? `document.problems.${problem}` : `documentChecks.problems.${problem}`;
}

function documentTimeline(
  stepId: string,
  was: StepState | undefined,
  is: StepState | undefined,
  told: { failed: string | undefined; registry?: RegistryCheckChange },
): TimelineDraft[] {
  const drafts: TimelineDraft[] = [];
  for (const side of SIDES) {
    const before = was?.document?.captures[side];
    const after = is?.document?.captures[side];
    if (!after) continue;
    const capture: TimelineCapture = side;
    if (after.status === 'reading' && before?.artefactId !== after.artefactId) {
      drafts.push({ kind: 'capture_uploaded', stepId, attempt: after.attempts, detail: { capture } });
      continue;
    }
    if (before?.status !== 'reading' || before.artefactId !== after.artefactId || after.status === 'reading') continue;
    if (after.status === 'accepted') {
      drafts.push({ kind: 'capture_read', stepId, attempt: after.attempts, detail: { capture, result: 'accepted' } });
      continue;
    }
    const refused = is?.status === 'failed';
    const messageKey = refused ? told.failed : problemMessageKey(after.problem);
    drafts.push({
      kind: 'capture_read',
      stepId,
      attempt: after.attempts,
      detail: {
        capture,
        result: refused ? 'refused' : 'asked_again',
        ...(after.problem ? { reason: after.problem } : {}),
        ...(messageKey ? { message_key: messageKey } : {}),
      },
    });
  }
  const registryBefore = was?.document?.registry?.status;
  const registryAfter = is?.document?.registry?.status;
  if (registryAfter === 'pending' && registryBefore !== 'pending') drafts.push({ kind: 'registry_check_queued', stepId });
  if (registryBefore === 'pending' && registryAfter !== undefined && registryAfter !== 'pending') {
    const attempts = told.registry?.kind === 'decide' ? told.registry.attempts : undefined;
    drafts.push({
      kind: 'registry_check_attempted',
      stepId,
      ...(attempts === undefined ? {} : { attempt: attempts }),
      detail: { outcome: registryAfter },
    });
  }
  return drafts;
}

function faceTimeline(
  stepId: string,
  was: StepState | undefined,
  is: StepState | undefined,
  failedKey: string | undefined,
): TimelineDraft[] {
  const before = was?.face;
  const after = is?.face;
  const drafts: TimelineDraft[] = [];
  const capture: TimelineCapture = 'face_frames';
  const judgingBefore = before?.judging?.artefactId;
  if (after?.judging && after.judging.artefactId !== judgingBefore) {
    drafts.push({
      kind: 'capture_uploaded',
      stepId,
      attempt: after.attempts,
      detail: { capture, method: after.judging.method },
    });
  }
  const judged = judgingBefore !== undefined && after?.judging?.artefactId !== judgingBefore;
  const evidenceBefore = before?.evidence?.length ?? 0;
  const newest = (after?.evidence?.length ?? 0) > evidenceBefore ? after?.evidence?.at(-1) : undefined;
  if (judged && newest) {
    const refused = !newest.passed && is?.status === 'failed';
    const messageKey = newest.passed
      ? undefined
      : refused
        ? failedKey
        : newest.reason
          ? `face.reasons.${newest.reason}`
          : undefined;
    drafts.push({
      kind: 'capture_read',
      stepId,
      attempt: newest.attempt,
      detail: {
        capture,
        result: newest.passed ? 'accepted' : refused ? 'refused' : 'asked_again',
        ...(newest.reason ? { reason: newest.reason } : {}),
        ...(messageKey ? { message_key: messageKey } : {}),
      },
    });
    return drafts;
  }
  // Frames that could not be judged (the attempt is given back), or that came too late (at the judge or
  // already at the submission): asked for again, no attempt used.
  const expired = (after?.expiries ?? 0) > (before?.expiries ?? 0);
  const unjudged = judged && after?.last === 'retry';
  if (!expired && !unjudged) return drafts;
  const last = after?.last;
  drafts.push({
    kind: 'capture_read',
    stepId,
    attempt: judged ? (before?.attempts ?? 0) : (after?.attempts ?? 0) + 1,
    detail: {
      capture,
      result: 'asked_again',
      reason: expired ? 'expired' : 'unjudged',
      ...(last === 'retry' || last === 'expired' || last === 'expired_again' ? { message_key: `face.reasons.${last}` } : {}),
    },
  });
  return drafts;
}

function codeTimeline(
  stepId: string,
  channel: 'email' | 'whatsapp',
  was: StepState | undefined,
  is: StepState | undefined,
): TimelineDraft[] {
  const before = was?.otp;
  const after = is?.otp;
  const drafts: TimelineDraft[] = [];
  const sendsBefore = before?.sends ?? 0;
  if (after && after.sends > sendsBefore) {
    drafts.push({ kind: after.sends === 1 ? 'code_sent' : 'code_resent', stepId, attempt: after.sends, detail: { channel } });
  }
  // A send is counted before the code leaves; a provider's refusal gives it back.
  if (before && (after?.sends ?? 0) < before.sends) {
    drafts.push({ kind: 'code_send_failed', stepId, attempt: before.sends, detail: { channel } });
  }
  if (before && after && after.attempts > before.attempts) {
    drafts.push({ kind: 'code_wrong', stepId, attempt: after.attempts, detail: { channel } });
  }
  if (is?.status === 'passed' && was?.status !== 'passed' && after)
    drafts.push({ kind: 'code_verified', stepId, detail: { channel } });
  return drafts;
}
