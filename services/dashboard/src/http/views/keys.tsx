import { SCOPES, type Account, type ApiKey } from '@idv/contracts';
import type { FieldErrors } from '../../domain/forms';
import type { Locale, Messages } from '../../domain/i18n';
import { COPY_SCRIPT_PATH, ErrorSummary, Flash, PostButton, renderPage, TableRegion, timeOf } from './layout';

interface KeysBase {
  locale: Locale;
  messages: Messages;
  csrfToken: string;
  account: Account;
}

/** Test and live are never shown without the mode in words and in colour. */
function ModeBadge(props: { mode: 'test' | 'live'; messages: Messages }) {
  return <span class={`mode mode-${props.mode}`}>{props.messages.keys.modes[props.mode]}</span>;
}

export function keysPage(
  view: KeysBase & {
    keys: ApiKey[];
    canWrite: boolean;
    nonce: string;
    errors?: FieldErrors;
    alert?: string;
    notice?: string;
    input?: { name?: string; mode?: 'test' | 'live'; scopes?: string[] };
  },
): string {
  const { messages: m, locale } = view;
  const k = m.keys;
  const errors = view.errors ?? {};
  const chosenScopes = view.input?.scopes ?? [...SCOPES];
  const mode = view.input?.mode ?? 'test';
  return renderPage(
    {
      locale,
      messages: m,
      title: k.title,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'keys' },
    },
    <>
      <h1>{k.title}</h1>
      <p class="lead">{k.lead}</p>
      <Flash notice={view.notice} />
      {view.keys.length === 0 ? (
        <p>{k.none}</p>
      ) : (
        <TableRegion label={k.title}>
          <table>
            <thead>
              <tr>
                <th scope="col">{k.columns.name}</th>
                <th scope="col">{k.columns.mode}</th>
                <th scope="col">{k.columns.scopes}</th>
                <th scope="col">{k.columns.created}</th>
                <th scope="col">{k.columns.lastUsed}</th>
                <th scope="col">{k.columns.state}</th>
                {view.canWrite ? <th scope="col">{k.columns.action}</th> : null}
              </tr>
            </thead>
            <tbody>
              {view.keys.map((key) => (
                <tr class={key.revoked_at ? 'revoked' : undefined}>
                  <th scope="row">
                    {key.name}
                    <br />
                    <code class="id">{key.id}</code>
                  </th>
                  <td>
                    <ModeBadge mode={key.mode} messages={m} />
                  </td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>{timeOf(locale, key.created_at)}</td>
                  <td>{key.last_used_at ? timeOf(locale, key.last_used_at) : k.never}</td>
                  <td>
                    {key.revoked_at
                      ? k.revokedOn(timeOf(locale, key.revoked_at))
                      : key.revokes_at
                        ? k.revokesOn(timeOf(locale, key.revokes_at))
                        : k.active}
                  </td>
                  {view.canWrite ? <td>{key.revoked_at ? null : <a href={`/keys/${key.id}/revoke`}>{k.revoke}</a>}</td> : null}
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {view.canWrite ? (
        <section aria-labelledby="create-key">
          <h2 id="create-key">{k.createTitle}</h2>
          <ErrorSummary messages={m} errors={errors} alert={view.alert} />
          <form method="post" action="/keys" novalidate>
            <input type="hidden" name="_csrf" value={view.csrfToken} />
            <input type="hidden" name="nonce" value={view.nonce} />
            <div class={errors.name ? 'field invalid' : 'field'}>
              <label for="f-name">{k.name}</label>
              {errors.name ? (
                <p class="field-error" id="e-name">
                  {m.fieldProblems[errors.name]}
                </p>
              ) : null}
              <input
                id="f-name"
                name="name"
                type="text"
                required
                maxLength={200}
                value={view.input?.name ?? ''}
                {...(errors.name ? { 'aria-invalid': 'true', 'aria-describedby': 'e-name' } : {})}
              />
            </div>
            <fieldset class="field" id="f-mode">
              <legend>{k.mode}</legend>
              {(['test', 'live'] as const).map((option) => (
                <label class="choice">
                  <input type="radio" name="mode" value={option} checked={mode === option} />{' '}
                  <ModeBadge mode={option} messages={m} />
                </label>
              ))}
            </fieldset>
            <fieldset class={errors.scopes ? 'field invalid' : 'field'} id="f-scopes">
              <legend>{k.scopes}</legend>
              <p class="hint">{k.scopesHint}</p>
              {errors.scopes ? <p class="field-error">{m.fieldProblems[errors.scopes]}</p> : null}
              {SCOPES.map((scope) => (
                <label class="choice">
                  <input type="checkbox" name="scopes" value={scope} checked={chosenScopes.includes(scope)} />{' '}
                  <code>{scope}</code>
                </label>
              ))}
            </fieldset>
            <button type="submit">{k.create}</button>
          </form>
        </section>
      ) : null}
    </>,
  );
}

export function keyCreatedPage(view: KeysBase & { key: ApiKey & { secret: string }; notice?: string }): string {
  const { messages: m, locale } = view;
  const k = m.keys;
  return renderPage(
    {
      locale,
      messages: m,
      title: k.createdTitle,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'keys' },
      scripts: [COPY_SCRIPT_PATH],
    },
    <>
      <h1>{k.createdTitle}</h1>
      <p>
        {view.key.name} <ModeBadge mode={view.key.mode} messages={m} /> <code class="id">{view.key.id}</code>
      </p>
      <Flash notice={view.notice} />
      <p class="warning" role="alert">
        {k.createdWarning}
      </p>
      <div class="field">
        <label for="secret">{k.secretLabel}</label>
        <input id="secret" type="text" readOnly value={view.key.secret} class="secret" autocomplete="off" spellcheck={false} />
        <button type="button" class="secondary" data-copy="secret" data-copied="✓" hidden>
          {k.copy}
        </button>
      </div>
      <p>
        <a href="/keys">{k.done}</a>
      </p>
    </>,
  );
}

export function revokeKeyPage(view: KeysBase & { key: ApiKey }): string {
  const { messages: m, locale } = view;
  const k = m.keys;
  return renderPage(
    {
      locale,
      messages: m,
      title: k.revokeTitle(view.key.name),
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'keys' },
    },
    <>
      <h1>{k.revokeTitle(view.key.name)}</h1>
      <p>
        <ModeBadge mode={view.key.mode} messages={m} /> <code class="id">{view.key.id}</code>
      </p>
      <p>{k.revokeBody}</p>
      <PostButton action={`/keys/${view.key.id}/revoke`} csrfToken={view.csrfToken} label={k.revokeConfirm} />{' '}
      <a href="/keys">{k.cancel}</a>
      {view.key.revokes_at ? null : (
        <section aria-labelledby="roll-key">
          <h2 id="roll-key">{k.rollTitle}</h2>
          <p>{k.rollBody}</p>
          <form method="post" action={`/keys/${view.key.id}/roll`}>
            <input type="hidden" name="_csrf" value={view.csrfToken} />
            <div class="field">
              <label for="f-delay">{k.rollDelay}</label>
              <select id="f-delay" name="delay">
                {(['0', '3600', '86400', '604800'] as const).map((delay) => (
                  <option value={delay} selected={delay === '86400'}>
                    {k.delays[delay]}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" class="secondary">
              {k.roll}
            </button>
          </form>
        </section>
      )}
    </>,
  );
}
