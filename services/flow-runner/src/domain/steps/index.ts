import { consentStep } from './consent';
import { formStep } from './form';
import { otpEmailStep, otpWhatsappStep } from './otp';
import type { RunnableStep, RunnableType, StepModule } from './types';
import { documentStep } from './document';
import { faceStep } from './face';

type Registry = { [T in RunnableType]: StepModule<Extract<RunnableStep, { type: T }>> };

/** One module per step type. */
export const STEP_MODULES: Registry = {
  consent: consentStep,
  form: formStep,
  otp_email: otpEmailStep,
  otp_whatsapp: otpWhatsappStep,
  document_ar: documentStep,
  face_liveness: faceStep,
};

export function moduleFor<S extends RunnableStep>(step: S): StepModule<S> {
  return STEP_MODULES[step.type] as unknown as StepModule<S>;
}

export * from './types';
export * from './document-state';
export * from './face-state';
