/**
 * A tiny HTML builder: `html\`...\`` escapes every interpolated value unless it is already `SafeHtml`
 * (the result of another `html` call or `raw`). Nothing user-controlled reaches a page unescaped.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return (value as readonly Interpolation[]).map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

export const raw = (value: string) => new SafeHtml(value);

/** What a step shows: a heading and the body under it (forms post to the flow's step endpoint). */
export interface StepView {
  title: string;
  body: SafeHtml;
  /** The page reloads itself after this many seconds (a server-side wait, no script needed). */
  refreshSeconds?: number;
  /** The page captures a photo of this side: the camera script may enhance its file input. */
  capture?: { side: string };
  /** The page needs a camera: it offers to continue on another device by QR (`handover.ts`). */
  offersHandover?: boolean;
  /** Where the person is within a step of several photos (the document's sides): "photo 2 of 3". */
  photo?: { index: number; total: number };
}

/** Field-level messages keyed by input name, and the values to put back in the inputs. */
export interface FormFeedback {
  errors?: Record<string, string>;
  values?: Record<string, string>;
  /** A message about the whole step (e.g. "we could not send the code"). */
  alert?: string;
  /** A neutral confirmation (e.g. "we sent a new code"). */
  info?: string;
}

/** Error summary + inline error ids, following the GOV.UK pattern screen readers handle well. */
export function errorSummary(title: string, errors: Record<string, string> | undefined): SafeHtml {
  const entries = Object.entries(errors ?? {});
  if (entries.length === 0) return html``;
  return html`<div class="error-summary" role="alert" tabindex="-1" id="error-summary">
    <h2>${title}</h2>
    <ul>
      ${entries.map(([name, message]) => html`<li><a href="#f-${name}">${message}</a></li>`)}
    </ul>
  </div>`;
}

export function alertBox(feedback: FormFeedback): SafeHtml {
  return html`${feedback.alert ? html`<p class="alert" role="alert">${feedback.alert}</p>` : ''}${
    feedback.info ? html`<p class="info" role="status">${feedback.info}</p>` : ''
  }`;
}

/** A POST form to the flow with the CSRF token and the step id it was drawn for. */
export function flowForm(
  sessionId: string,
  csrfToken: string,
  stepId: string,
  inner: SafeHtml,
  options: { novalidate?: boolean; multipart?: boolean } = {},
): SafeHtml {
  const attributes = `${options.multipart ? ' enctype="multipart/form-data"' : ''}${options.novalidate ? ' novalidate' : ''}`;
  return html`<form method="post" action="/s/${sessionId}" ${raw(attributes)}>
    <input type="hidden" name="_csrf" value="${csrfToken}" /><input type="hidden" name="step" value="${stepId}" /> ${inner}
  </form>`;
}
