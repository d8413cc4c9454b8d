import type { FlowConfig } from '@idv/contracts';
import type { Messages } from '../i18n';
import { REASON_CODES } from '../reason-codes';
import type { ConsentStep, StepModule } from './types';

type Collected = keyof Messages['consentCollects'];

/**
 * What the frozen configuration will collect, in the order the person meets it: each kind once, a
 * choice's options included (the person may pick any of them).
 */
export function collectedBy(config: FlowConfig): Collected[] {
  const collected = new Set<Collected>();
  const leaves = config.steps.flatMap((step) => (step.type === 'choice' ? step.options : [step]));
  for (const step of leaves) {
    switch (step.type) {
      case 'document_ar':
        collected.add('document');
        if (step.registryCheck) collected.add('registry');
        break;
      case 'face_liveness':
        collected.add('face');
        if (step.compareWithDocument) collected.add('faceComparison');
        break;
      case 'otp_email':
        collected.add('email');
        break;
      case 'otp_whatsapp':
        collected.add('phone');
        break;
      case 'form':
        collected.add('form');
        break;
    }
  }
  return [...collected];
}

/**
 * Always first: what the flow collects (by its frozen configuration), why, for how long, and the
 * integrator's privacy text when the project gives one. Accepting passes; declining ends the session
 * rejected with `consent_declined`.
 */
export const consentStep: StepModule<ConsentStep> = {
  type: 'consent',
  render: (ctx) => {
    const { t } = ctx;
    const privacy = ctx.config.options.privacyPolicyUrl;
    return {
      title: t.consentTitle,
      body: { kind: 'consent', collects: collectedBy(ctx.config), retentionDays: ctx.retentionDays, privacyUrl: privacy },
    };
  },
  accept: (_ctx, input) => {
    if (input.action === 'accept') return { kind: 'passed' };
    if (input.action === 'decline') return { kind: 'failed', reason: REASON_CODES.consentDeclined };
    return { kind: 'stay' };
  },
};
