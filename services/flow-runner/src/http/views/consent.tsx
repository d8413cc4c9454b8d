import type { Messages } from '../../domain/i18n';
import type { StepBody } from '../../domain/view';
import { FlowForm, type FormTarget } from './common';

export function ConsentView(props: { t: Messages; to: FormTarget; body: Extract<StepBody, { kind: 'consent' }> }) {
  const { t, body } = props;
  return (
    <FlowForm to={props.to}>
      <p>{t.consentIntro}</p>
      <ul class="collects">
        {body.collects.map((kind) => (
          <li>{t.consentCollects[kind]}</li>
        ))}
      </ul>
      <p>{t.consentPurpose}</p>
      <p>{t.consentRetention(body.retentionDays)}</p>
      {body.privacyUrl ? (
        <p>
          <a href={body.privacyUrl} rel="noopener noreferrer" target="_blank">
            {t.consentPrivacy}
          </a>
        </p>
      ) : null}
      <div class="actions">
        <button type="submit" name="action" value="accept" class="primary">
          {t.consentAccept}
        </button>
        <button type="submit" name="action" value="decline" class="secondary">
          {t.consentDecline}
        </button>
      </div>
    </FlowForm>
  );
}
