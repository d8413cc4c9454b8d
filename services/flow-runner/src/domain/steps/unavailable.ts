import type { FaceStepSchema } from '@idv/contracts';
import type { z } from 'zod';
import { REASON_CODES } from '../reason-codes';
import { html } from '../view';
import type { StepModule } from './types';

type FaceStep = z.infer<typeof FaceStepSchema>;

/**
 * Placeholder for the step type whose capture is not built yet (`face_liveness`): the page
 * says so plainly and the only way on fails the step with `step_unavailable` (inside a choice, the
 * person can pick another option instead). Replace with the real module when it exists.
 */
function unavailable<S extends FaceStep>(type: S['type']): StepModule<S> {
  return {
    type,
    render: (ctx) => ({
      title: ctx.t.unavailableTitle,
      body: ctx.form(
        html`<p>${ctx.t.unavailableBody}</p>
          <div class="actions">
            <button type="submit" name="action" value="acknowledge" class="primary">${ctx.t.continue}</button>
          </div>`,
      ),
    }),
    accept: (_ctx, input) =>
      input.action === 'acknowledge' ? { kind: 'failed', reason: REASON_CODES.stepUnavailable } : { kind: 'stay' },
  };
}

export const faceStep = unavailable<FaceStep>('face_liveness');
