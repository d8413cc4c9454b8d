import type { Messages } from '../../domain/i18n';
import type { StepBody } from '../../domain/view';
import { AlertBox, ErrorSummary, FlowForm, type FormTarget } from './common';

export function OtpDestinationView(props: { t: Messages; to: FormTarget; body: Extract<StepBody, { kind: 'otp_destination' }> }) {
  const { t, body } = props;
  const error = body.feedback.errors?.destination;
  const input =
    body.channel === 'email'
      ? { type: 'email', autoComplete: 'email', inputMode: 'email' as const, maxLength: 254 }
      : { type: 'tel', autoComplete: 'tel-national', inputMode: 'tel' as const, maxLength: 30 };
  return (
    <>
      <ErrorSummary title={t.fixErrors} errors={body.feedback.errors} />
      <AlertBox feedback={body.feedback} />
      <FlowForm to={props.to}>
        <div class={`field${error ? ' has-error' : ''}`}>
          <label for="f-destination">{body.label}</label>
          <p class="hint" id="h-destination">
            {body.hint}
          </p>
          {error ? (
            <p class="field-error" id="e-destination">
              {error}
            </p>
          ) : null}
          <input
            {...input}
            id="f-destination"
            name="destination"
            required
            aria-required="true"
            value={body.feedback.values?.destination ?? ''}
            aria-describedby={`h-destination${error ? ' e-destination' : ''}`}
            {...(error ? { 'aria-invalid': 'true' as const } : {})}
          />
        </div>
        <div class="actions">
          <button type="submit" name="action" value="send" class="primary">
            {t.sendCode}
          </button>
        </div>
      </FlowForm>
    </>
  );
}

export function OtpCodeView(props: { t: Messages; to: FormTarget; body: Extract<StepBody, { kind: 'otp_code' }> }) {
  const { t, body } = props;
  const error = body.feedback.errors?.code;
  return (
    <>
      <ErrorSummary title={t.fixErrors} errors={body.feedback.errors} />
      <AlertBox feedback={body.feedback} />
      <p>{t.codeSentTo(body.sentTo)}</p>
      <FlowForm to={props.to}>
        <div class={`field${error ? ' has-error' : ''}`}>
          <label for="f-code">{t.codeLabel}</label>
          {error ? (
            <p class="field-error" id="e-code">
              {error}
            </p>
          ) : null}
          <input
            type="text"
            id="f-code"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            required
            aria-required="true"
            {...(error ? { 'aria-describedby': 'e-code', 'aria-invalid': 'true' as const } : {})}
          />
        </div>
        <div class="actions">
          <button type="submit" name="action" value="verify" class="primary">
            {t.verifyCode}
          </button>
          <button type="submit" name="action" value="resend" class="secondary" formNoValidate>
            {t.resendCode}
          </button>
          <button type="submit" name="action" value="change" class="link" formNoValidate>
            {t.changeDestination}
          </button>
        </div>
      </FlowForm>
    </>
  );
}
