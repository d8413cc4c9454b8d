import type { Account } from '@idv/contracts';
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { FieldErrors } from '../../domain/forms';
import type { Locale, Messages } from '../../domain/i18n';

/** The views' moments, from the dashboard's one set of cached formatters (domain/locale). */
export { timeOf } from '../../domain/locale';

export const STYLESHEET_PATH = '/assets/dashboard.css';

/** What a signed-in page's view is framed with: the language and words, the CSRF token, the account, whether the team's sections show. */
export interface SignedInView {
  locale: Locale;
  messages: Messages;
  csrfToken: string;
  account: Account;
  team: boolean;
}

export interface PageFrame {
  locale: Locale;
  messages: Messages;
  title: string;
  /** The signed-in person's header: their account's name, the sections and the sign-out form. */
  signedIn?: {
    accountName: string;
    csrfToken: string;
    section?: 'home' | 'keys' | 'projects' | 'members' | 'audit' | 'balance' | 'usage' | 'sessions' | 'webhooks';
    team?: boolean;
  };
  /** This page's own scripts (the CSP allows this origin's only). */
  scripts?: string[];
}

export const COPY_SCRIPT_PATH = '/assets/copy.js';

/** One page of the dashboard: its own stylesheet only (strict CSP), a skip link, the language of its text. */
export function renderPage(frame: PageFrame, body: ComponentChildren): string {
  const { messages } = frame;
  return `<!doctype html>${renderToString(
    <html lang={frame.locale === 'es' ? 'es-AR' : 'en'}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${frame.title} · ${messages.product}`}</title>
        <link rel="stylesheet" href={STYLESHEET_PATH} />
        {(frame.scripts ?? []).map((src) => (
          <script src={src} defer />
        ))}
      </head>
      <body>
        <a class="skip" href="#main">
          {messages.skip}
        </a>
        <header class="top">
          <a class="brand" href="/">
            {messages.product}
          </a>
          {frame.signedIn ? (
            <nav aria-label={messages.product}>
              <a href="/home" {...(frame.signedIn.section === 'home' ? { 'aria-current': 'page' } : {})}>
                {messages.nav.home}
              </a>
              <a href="/projects" {...(frame.signedIn.section === 'projects' ? { 'aria-current': 'page' } : {})}>
                {messages.nav.projects}
              </a>
              <a href="/sessions" {...(frame.signedIn.section === 'sessions' ? { 'aria-current': 'page' } : {})}>
                {messages.nav.sessions}
              </a>
              <a href="/keys" {...(frame.signedIn.section === 'keys' ? { 'aria-current': 'page' } : {})}>
                {messages.nav.keys}
              </a>
              <a href="/webhooks" {...(frame.signedIn.section === 'webhooks' ? { 'aria-current': 'page' } : {})}>
                {messages.nav.webhooks}
              </a>
              <a href="/balance" {...(frame.signedIn.section === 'balance' ? { 'aria-current': 'page' } : {})}>
                {messages.nav.balance}
              </a>
              <a href="/usage" {...(frame.signedIn.section === 'usage' ? { 'aria-current': 'page' } : {})}>
                {messages.nav.usage}
              </a>
              {frame.signedIn.team ? (
                <a href="/members" {...(frame.signedIn.section === 'members' ? { 'aria-current': 'page' } : {})}>
                  {messages.nav.members}
                </a>
              ) : null}
              {frame.signedIn.team ? (
                <a href="/audit" {...(frame.signedIn.section === 'audit' ? { 'aria-current': 'page' } : {})}>
                  {messages.nav.audit}
                </a>
              ) : null}
            </nav>
          ) : null}
          {frame.signedIn ? (
            <div class="who">
              <a href="/organisations" title={messages.switchOrganisation}>
                {frame.signedIn.accountName}
              </a>
              <PostButton action="/sign-out" csrfToken={frame.signedIn.csrfToken} label={messages.signOut} secondary />
            </div>
          ) : null}
        </header>
        <main id="main">{body}</main>
      </body>
    </html>,
  )}`;
}

/**
 * A table that may be wider than a phone's screen: it scrolls sideways inside a region the keyboard can
 * focus and a screen reader names (axe's scrollable-region-focusable).
 */
export function TableRegion(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={props.label}>
      {props.children}
    </div>
  );
}

/** A form of one button (sign out, resend): a POST with its CSRF token, never a link that changes state. */
export function PostButton(props: { action: string; csrfToken: string; label: string; secondary?: boolean }) {
  return (
    <form method="post" action={props.action} class="inline">
      <input type="hidden" name="_csrf" value={props.csrfToken} />
      <button type="submit" class={props.secondary ? 'secondary' : undefined}>
        {props.label}
      </button>
    </form>
  );
}

/** Error summary with links to the fields (the pattern screen readers handle well), then each field's message. */
export function ErrorSummary(props: { messages: Messages; errors: FieldErrors; alert?: string | undefined }) {
  const entries = Object.entries(props.errors).filter((entry): entry is [string, NonNullable<(typeof entry)[1]>] => !!entry[1]);
  if (entries.length === 0 && !props.alert) return null;
  return (
    <div class="error-summary" role="alert" tabIndex={-1} id="error-summary">
      <h2>{props.messages.errorSummary}</h2>
      {props.alert ? <p>{props.alert}</p> : null}
      {entries.length ? (
        <ul>
          {entries.map(([name, problem]) => (
            <li>
              <a href={`#f-${name}`}>{props.messages.fieldProblems[problem]}</a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Field(props: {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password';
  value?: string;
  autocomplete: string;
  hint?: string;
  messages: Messages;
  errors: FieldErrors;
}) {
  const problem = props.errors[props.name];
  const describedBy = [props.hint ? `h-${props.name}` : '', problem ? `e-${props.name}` : ''].filter(Boolean).join(' ');
  return (
    <div class={problem ? 'field invalid' : 'field'}>
      <label for={`f-${props.name}`}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`h-${props.name}`}>
          {props.hint}
        </p>
      ) : null}
      {problem ? (
        <p class="field-error" id={`e-${props.name}`}>
          {props.messages.fieldProblems[problem]}
        </p>
      ) : null}
      <input
        id={`f-${props.name}`}
        name={props.name}
        type={props.type ?? 'text'}
        autocomplete={props.autocomplete}
        required
        {...(props.value !== undefined && props.type !== 'password' ? { value: props.value } : {})}
        {...(describedBy ? { 'aria-describedby': describedBy } : {})}
        {...(problem ? { 'aria-invalid': 'true' } : {})}
      />
    </div>
  );
}

/** A page's one-line outcome: what was done (a status) or what went wrong (an alert). */
export function Flash(props: { notice?: string | undefined; alert?: string | undefined }) {
  return (
    <>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      {props.alert ? (
        <p class="error-summary" role="alert">
          {props.alert}
        </p>
      ) : null}
    </>
  );
}
