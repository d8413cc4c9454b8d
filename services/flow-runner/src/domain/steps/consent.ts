import { REASON_CODES } from '../reason-codes';
import { html } from '../view';
import type { ConsentStep, StepModule } from './types';

/** Always first. Accepting passes; declining ends the session rejected with `consent_declined`. */
export const consentStep: StepModule<ConsentStep> = {
  type: 'consent',
  render: (ctx) => ({
    title: ctx.t.consentTitle,
    body: ctx.form(
      html`<p>${ctx.t.consentBody}</p>
        <div class="actions">
          <button type="submit" name="action" value="accept" class="primary">${ctx.t.consentAccept}</button>
          <button type="submit" name="action" value="decline" class="secondary">${ctx.t.consentDecline}</button>
        </div>`,
    ),
  }),
  accept: (_ctx, input) => {
    if (input.action === 'accept') return { kind: 'passed' };
    if (input.action === 'decline') return { kind: 'failed', reason: REASON_CODES.consentDeclined };
    return { kind: 'stay' };
  },
};
