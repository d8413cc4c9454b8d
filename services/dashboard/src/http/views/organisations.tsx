import type { Account } from '@idv/contracts';
import type { Locale, Messages } from '../../domain/i18n';
import type { Organisation } from '../../use-cases/organisations';
import { Flash, renderPage } from './layout';

/** The person's organisations: the one this browser works in, a switch to each other, and a new one. */
export function organisationsPage(view: {
  locale: Locale;
  messages: Messages;
  csrfToken: string;
  account: Account;
  organisations: Organisation[];
  nonce: string;
  alert?: string;
}): string {
  const o = view.messages.organisations;
  return renderPage(
    {
      locale: view.locale,
      messages: view.messages,
      title: o.title,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken },
    },
    <>
      <h1>{o.title}</h1>
      <p class="lead">{o.lead}</p>
      <Flash alert={view.alert} />
      <ul class="organisations">
        {view.organisations.map((organisation) => (
          <li>
            <strong>{organisation.account.name}</strong> · {view.messages.members.roles[organisation.role]} ·{' '}
            {o.status[organisation.account.status]}{' '}
            {organisation.current ? (
              <span class="current">({o.current})</span>
            ) : (
              <form method="post" action="/organisations/switch" class="inline">
                <input type="hidden" name="_csrf" value={view.csrfToken} />
                <input type="hidden" name="account_id" value={organisation.account.id} />
                <button type="submit" class="secondary">
                  {o.switchTo}
                  <span class="visually-hidden"> {organisation.account.name}</span>
                </button>
              </form>
            )}
          </li>
        ))}
      </ul>
      <h2>{o.createTitle}</h2>
      <p>{o.createLead}</p>
      <form method="post" action="/organisations" novalidate>
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <input type="hidden" name="nonce" value={view.nonce} />
        <div class="field">
          <label for="f-organisation">{view.messages.organisation}</label>
          <input id="f-organisation" name="organisation" type="text" required maxLength={200} autocomplete="organization" />
        </div>
        <button type="submit">{o.create}</button>
      </form>
    </>,
  );
}
