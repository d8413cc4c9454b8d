import type { SessionId } from '@idv/contracts';
import type { ComponentChildren } from 'preact';
import type { Messages } from '../../domain/i18n';
import type { FormFeedback, SamplesView } from '../../domain/view';

/** Where a step's forms post: the flow, with its CSRF token and the step they were drawn for. */
export interface FormTarget {
  sessionId: SessionId;
  csrfToken: string;
  stepId: string;
}

/** A POST form to the flow; the CSRF token is its first field (an upload's files are read only after it). */
export function FlowForm(props: { to: FormTarget; novalidate?: boolean; multipart?: boolean; children: ComponentChildren }) {
  return (
    <form
      method="post"
      action={`/s/${props.to.sessionId}`}
      {...(props.multipart ? { enctype: 'multipart/form-data' } : {})}
      {...(props.novalidate ? { noValidate: true } : {})}
    >
      <input type="hidden" name="_csrf" value={props.to.csrfToken} />
      <input type="hidden" name="step" value={props.to.stepId} /> {props.children}
    </form>
  );
}

/** Error summary + inline error ids, following the GOV.UK pattern screen readers handle well. */
export function ErrorSummary(props: { title: string; errors: Record<string, string> | undefined }) {
  const entries = Object.entries(props.errors ?? {});
  if (entries.length === 0) return null;
  return (
    <div class="error-summary" role="alert" tabIndex={-1} id="error-summary">
      <h2>{props.title}</h2>
      <ul>
        {entries.map(([name, message]) => (
          <li>
            <a href={`#f-${name}`}>{message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function AlertBox(props: { feedback: Pick<FormFeedback, 'alert' | 'info'> }) {
  return (
    <>
      {props.feedback.alert ? (
        <p class="alert" role="alert">
          {props.feedback.alert}
        </p>
      ) : null}
      {props.feedback.info ? (
        <p class="info" role="status">
          {props.feedback.info}
        </p>
      ) : null}
    </>
  );
}

/** A step's alert and, once an attempt was used, how many are left. */
export function AttemptHeader(props: { alert: string | undefined; attemptsLeft: number | null; say: (left: number) => string }) {
  return (
    <>
      {props.alert ? (
        <p class="alert" role="alert">
          {props.alert}
        </p>
      ) : null}
      {props.attemptsLeft !== null ? <p class="hint">{props.say(props.attemptsLeft)}</p> : null}
    </>
  );
}

/**
 * The test-mode list of sample captures: one small form per sample, each posting `action=sample` with
 * the sample's id and the hidden fields the step needs to know which capture it stands for.
 */
export function SamplesList(props: { t: Messages; to: FormTarget; view: SamplesView }) {
  const copy = props.view.copy === 'document' ? props.t.document : props.t.face;
  const hidden = Object.entries(props.view.hidden);
  return (
    <section class="samples" aria-labelledby="samples-title">
      <h2 id="samples-title">{copy.samplesTitle}</h2>
      <p class="hint">{copy.samplesHint}</p>
      <ul>
        {props.view.samples.map((sample) => (
          <li>
            <FlowForm to={props.to} novalidate>
              {hidden.map(([name, value]) => (
                <input type="hidden" name={name} value={value} />
              ))}
              <input type="hidden" name="sample" value={sample.id} />
              <button type="submit" name="action" value="sample" class="secondary">
                {copy.useSample}: {sample.label}
              </button>
            </FlowForm>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The camera scripts' texts for a camera that cannot be used (`data-camera-*` attributes of the element
 * they enhance): why, as the browser said it, and `wayOn`, the page's own way on without it.
 */
export const cameraAccessAttributes = (t: Messages, wayOn: string) => ({
  'data-camera-denied': t.cameraAccess.denied,
  'data-camera-missing': t.cameraAccess.missing,
  'data-camera-busy': t.cameraAccess.busy,
  'data-camera-unsupported': t.cameraAccess.unsupported,
  'data-camera-failed': t.cameraAccess.failed,
  'data-camera-way-on': wayOn,
});
