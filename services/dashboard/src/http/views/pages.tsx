import type { Account } from '@idv/contracts';
import type { FieldErrors, SignInInput, SignUpInput } from '../../domain/forms';
import type { ChecklistItem } from '../../use-cases/accounts';
import type { Locale, Messages } from '../../domain/i18n';
import { ErrorSummary, Field, Flash, PostButton, renderPage } from './layout';

interface Base {
  locale: Locale;
  messages: Messages;
  csrfToken: string;
}

export function signUpPage(view: Base & { input?: Partial<SignUpInput>; errors?: FieldErrors; alert?: string }): string {
  const { messages: m } = view;
  const errors = view.errors ?? {};
  return renderPage(
    { locale: view.locale, messages: m, title: m.signUpTitle },
    <>
      <h1>{m.signUpTitle}</h1>
      <p class="lead">{m.signUpLead}</p>
      <ErrorSummary messages={m} errors={errors} alert={view.alert} />
      <form method="post" action="/sign-up" novalidate>
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <Field
          name="organisation"
          label={m.organisation}
          value={view.input?.organisation}
          autocomplete="organization"
          messages={m}
          errors={errors}
        />
        <Field name="name" label={m.ownerName} value={view.input?.name} autocomplete="name" messages={m} errors={errors} />
        <Field
          name="email"
          type="email"
          label={m.email}
          value={view.input?.email}
          autocomplete="email"
          messages={m}
          errors={errors}
        />
        <Field
          name="password"
          type="password"
          label={m.password}
          hint={m.passwordHint}
          autocomplete="new-password"
          messages={m}
          errors={errors}
        />
        <button type="submit">{m.createAccount}</button>
      </form>
      <p>
        <a href="/sign-in">{m.haveAccount}</a>
      </p>
    </>,
  );
}

export function signInPage(
  view: Base & {
    input?: Partial<SignInInput>;
    errors?: FieldErrors;
    alert?: string;
    notice?: string;
    action?: string;
    title?: string;
  },
): string {
  const { messages: m } = view;
  const errors = view.errors ?? {};
  const title = view.title ?? m.signInTitle;
  const action = view.action ?? '/sign-in';
  return renderPage(
    { locale: view.locale, messages: m, title },
    <>
      <h1>{title}</h1>
      <Flash notice={view.notice} />
      <ErrorSummary messages={m} errors={errors} alert={view.alert} />
      <form method="post" action={action} novalidate>
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <Field
          name="email"
          type="email"
          label={m.email}
          value={view.input?.email}
          autocomplete="username"
          messages={m}
          errors={errors}
        />
        <Field name="password" type="password" label={m.password} autocomplete="current-password" messages={m} errors={errors} />
        <button type="submit">{m.signIn}</button>
      </form>
      {action === '/sign-in' ? (
        <>
          <p>
            <a href="/forgot">{m.forgot}</a>
          </p>
          <p>
            <a href="/sign-up">{m.noAccount}</a>
          </p>
        </>
      ) : null}
    </>,
  );
}

/** A page of one message: sent mail, a used link, an expired form, not found. */
export function messagePage(view: {
  locale: Locale;
  messages: Messages;
  title: string;
  body: string;
  action?: { href: string; label: string };
}): string {
  return renderPage(
    { locale: view.locale, messages: view.messages, title: view.title },
    <>
      <h1>{view.title}</h1>
      <p>{view.body}</p>
      {view.action ? (
        <p>
          <a href={view.action.href}>{view.action.label}</a>
        </p>
      ) : null}
    </>,
  );
}

export function confirmEmailPage(view: Base & { token: string }): string {
  const { messages: m } = view;
  return renderPage(
    { locale: view.locale, messages: m, title: m.confirmTitle },
    <>
      <h1>{m.confirmTitle}</h1>
      <p>{m.confirmBody}</p>
      <form method="post" action="/confirm-email">
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <input type="hidden" name="token" value={view.token} />
        <button type="submit">{m.confirmButton}</button>
      </form>
    </>,
  );
}

export function homePage(
  view: Base & { account: Account; emailConfirmed: boolean; checklist: ChecklistItem[] | null; team?: boolean; notice?: string },
): string {
  const { messages: m } = view;
  const status = m.accountStatus[view.account.status];
  return renderPage(
    {
      locale: view.locale,
      messages: m,
      title: m.homeTitle,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'home', team: view.team ?? false },
    },
    <>
      <h1>{m.homeTitle}</h1>
      <Flash notice={view.notice} />
      <section class={`status status-${view.account.status}`} aria-labelledby="account-status">
        <h2 id="account-status">{status.title}</h2>
        <p>{status.body}</p>
      </section>
      {view.emailConfirmed ? null : (
        <section class="status status-pending">
          <p>{m.emailUnconfirmed}</p>
          <PostButton action="/confirm-email/resend" csrfToken={view.csrfToken} label={m.resendConfirmation} secondary />
        </section>
      )}
      <section aria-labelledby="go-live" class="checklist">
        <h2 id="go-live">{m.checklist.title}</h2>
        <p class="hint">{m.checklist.lead}</p>
        {view.checklist ? (
          <ul>
            {view.checklist.map((item) => {
              const copy = m.checklist.items[item.id];
              return (
                <li class={item.done ? 'done' : 'missing'}>
                  <strong>{item.done ? `✓ ${m.checklist.done}` : `✗ ${m.checklist.missing}`}:</strong>{' '}
                  {item.href && !item.done ? <a href={item.href}>{copy.label}</a> : copy.label}
                  {item.done ? null : <span class="hint"> — {copy.how}</span>}
                </li>
              );
            })}
          </ul>
        ) : (
          <p>{m.checklist.unavailable}</p>
        )}
      </section>
      <p>
        <a href="/security">{m.security.title}</a>
      </p>
      <PostButton action="/sign-out-everywhere" csrfToken={view.csrfToken} label={m.signOutEverywhere} secondary />
    </>,
  );
}

export function forgotPage(view: Base & { notice?: string; alert?: string; errors?: FieldErrors; email?: string }): string {
  const { messages: m } = view;
  const errors = view.errors ?? {};
  return renderPage(
    { locale: view.locale, messages: m, title: m.forgotTitle },
    <>
      <h1>{m.forgotTitle}</h1>
      <p class="lead">{m.forgotLead}</p>
      <Flash notice={view.notice} />
      <ErrorSummary messages={m} errors={errors} alert={view.alert} />
      <form method="post" action="/forgot" novalidate>
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <Field
          name="email"
          type="email"
          label={m.email}
          value={view.email}
          autocomplete="username"
          messages={m}
          errors={errors}
        />
        <button type="submit">{m.sendLinks}</button>
      </form>
    </>,
  );
}

export function resetPasswordPage(view: Base & { token: string; errors?: FieldErrors }): string {
  const { messages: m } = view;
  const errors = view.errors ?? {};
  return renderPage(
    { locale: view.locale, messages: m, title: m.resetTitle },
    <>
      <h1>{m.resetTitle}</h1>
      <ErrorSummary messages={m} errors={errors} />
      <form method="post" action="/reset-password" novalidate>
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <input type="hidden" name="token" value={view.token} />
        <Field
          name="password"
          type="password"
          label={m.newPassword}
          hint={m.passwordHint}
          autocomplete="new-password"
          messages={m}
          errors={errors}
        />
        <button type="submit">{m.setPassword}</button>
      </form>
    </>,
  );
}

export function signInLinkPage(view: Base & { token: string }): string {
  const { messages: m } = view;
  return renderPage(
    { locale: view.locale, messages: m, title: m.signInLinkTitle },
    <>
      <h1>{m.signInLinkTitle}</h1>
      <p>{m.signInLinkBody}</p>
      <form method="post" action="/sign-in-link">
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <input type="hidden" name="token" value={view.token} />
        <button type="submit">{m.signIn}</button>
      </form>
    </>,
  );
}

/** A TOTP code's page: the enrolment (with its QR and key in text) or the sign-in's second step. */
export function twoFactorPage(
  view: Base & { title: string; body: string; action: string; qrSvg?: string; secret?: string; alert?: string; notice?: string },
): string {
  const { messages: m } = view;
  const o = m.operator;
  return renderPage(
    { locale: view.locale, messages: m, title: view.title },
    <>
      <h1>{view.title}</h1>
      <Flash notice={view.notice} alert={view.alert} />
      <p>{view.body}</p>
      {view.qrSvg ? <div class="qr" role="img" aria-label={view.title} dangerouslySetInnerHTML={{ __html: view.qrSvg }} /> : null}
      {view.secret ? (
        <p>
          {o.enrolManual} <code class="secret-text">{view.secret}</code>
        </p>
      ) : null}
      <form method="post" action={view.action} novalidate>
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <div class="field">
          <label for="f-code">{o.code}</label>
          <p class="hint" id="h-code">
            {o.codeHint}
          </p>
          <input
            id="f-code"
            name="code"
            type="text"
            inputMode="numeric"
            autocomplete="one-time-code"
            required
            aria-describedby="h-code"
          />
        </div>
        <button type="submit">{o.confirm}</button>
      </form>
    </>,
  );
}

export function recoveryCodesShownOnce(view: Base & { codes: string[]; next: string }): string {
  const o = view.messages.operator;
  return renderPage(
    { locale: view.locale, messages: view.messages, title: o.recoveryTitle },
    <>
      <h1>{o.recoveryTitle}</h1>
      <p class="warning" role="alert">
        {o.recoveryBody}
      </p>
      <ul class="codes">
        {view.codes.map((code) => (
          <li>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <p>
        <a href={view.next}>{o.continue}</a>
      </p>
    </>,
  );
}

export function securityPage(
  view: Base & { account: Account; enrolled: boolean; isOwner: boolean; required: boolean; notice?: string },
): string {
  const { messages: m } = view;
  const t = m.security;
  return renderPage(
    {
      locale: view.locale,
      messages: m,
      title: t.title,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, team: view.isOwner },
    },
    <>
      <h1>{t.title}</h1>
      <Flash notice={view.notice} />
      <p>{view.enrolled ? t.on : t.off}</p>
      {view.enrolled ? null : (
        <p>
          <a href="/security/setup">{t.enable}</a>
        </p>
      )}
      {view.isOwner ? (
        <section aria-labelledby="require-2fa">
          <h2 id="require-2fa">{t.requireTitle}</h2>
          <form method="post" action="/security/require">
            <input type="hidden" name="_csrf" value={view.csrfToken} />
            <input type="hidden" name="required" value={view.required ? 'off' : 'on'} />
            <button type="submit" class="secondary">
              {view.required ? t.requireOff : t.requireOn}
            </button>
          </form>
        </section>
      ) : null}
    </>,
  );
}
