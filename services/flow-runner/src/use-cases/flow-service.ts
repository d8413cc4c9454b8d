import type { ArtefactId, DeviceClass, SessionId } from '@idv/contracts';
import type { Locale } from '../domain/i18n';
import type { HandOverResult, OpenResult, ShowResult, SubmissionAdmission, SubmitResult } from '../domain/pages';
import type { RegistryCheckState, SubmittedFiles } from '../domain/ports';
import type { RegistryAnswer } from '../domain/registry';
import type { CaptureVerdict } from '../domain/steps/document-state';
import type { FaceJudgement } from '../domain/steps/face-state';
import { FlowCore, type FlowDeps } from './flow-core';
import { handOver } from './hand-over';
import { applyFaceJudgement } from './judge-face';
import { openLink } from './open-link';
import { applyReading } from './read-capture';
import { applyRegistryAnswer, registryCheckState, settleRegistryCheck } from './registry-check';
import { flowVersion, showPage } from './show-page';
import { admitSubmission, submitStep } from './submit-step';

/**
 * The person's flow as the pages, the jobs and the registry runner call it: one method per use case,
 * each in its own module (open-link, show-page, submit-step, hand-over, read-capture, judge-face,
 * registry-check) over the shared `FlowCore`.
 */
export class FlowService {
  readonly core: FlowCore;

  constructor(deps: FlowDeps) {
    this.core = new FlowCore(deps);
  }

  openLink(
    token: string,
    bindingSecret: (sessionId: SessionId) => string | undefined,
    locale: Locale,
    device?: DeviceClass,
  ): Promise<OpenResult> {
    return openLink(this.core, token, bindingSecret, locale, device);
  }

  version(sessionId: SessionId, bindingSecret: string | undefined): Promise<number | null> {
    return flowVersion(this.core, sessionId, bindingSecret);
  }

  show(sessionId: SessionId, bindingSecret: string | undefined, locale: Locale, handoverToken?: string): Promise<ShowResult> {
    return showPage(this.core, sessionId, bindingSecret, locale, handoverToken);
  }

  handOver(sessionId: SessionId, token: string, device?: DeviceClass): Promise<HandOverResult> {
    return handOver(this.core, sessionId, token, device);
  }

  admitSubmission(sessionId: SessionId, bindingSecret: string | undefined): Promise<SubmissionAdmission> {
    return admitSubmission(this.core, sessionId, bindingSecret);
  }

  submit(
    sessionId: SessionId,
    bindingSecret: string | undefined,
    input: Record<string, string>,
    locale: Locale,
    files: SubmittedFiles = {},
    handoverToken?: string,
  ): Promise<SubmitResult> {
    return submitStep(this.core, sessionId, bindingSecret, input, locale, files, handoverToken);
  }

  applyReading(sessionId: SessionId, stepId: string, artefactId: ArtefactId, verdict: CaptureVerdict): Promise<void> {
    return applyReading(this.core, sessionId, stepId, artefactId, verdict);
  }

  applyFaceJudgement(sessionId: SessionId, stepId: string, artefactId: ArtefactId, judgement: FaceJudgement): Promise<void> {
    return applyFaceJudgement(this.core, sessionId, stepId, artefactId, judgement);
  }

  registryCheckState(sessionId: SessionId, stepId: string): Promise<RegistryCheckState> {
    return registryCheckState(this.core, sessionId, stepId);
  }

  applyRegistryAnswer(
    sessionId: SessionId,
    stepId: string,
    answer: RegistryAnswer,
    attempts: number,
    retryLeft: boolean,
  ): Promise<'retry' | 'decided' | 'gone'> {
    return applyRegistryAnswer(this.core, sessionId, stepId, answer, attempts, retryLeft);
  }

  settleRegistryCheck(sessionId: SessionId): Promise<void> {
    return settleRegistryCheck(this.core, sessionId);
  }
}
