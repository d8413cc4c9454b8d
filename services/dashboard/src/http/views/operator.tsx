import type { Account, AccountStatus, ApiKey, ProjectOverview, Usage } from '@idv/contracts';
import type { Locale, Messages } from '../../domain/i18n';
import { Flash, PostButton, renderPage, TableRegion } from './layout';

interface OperatorBase {
  locale: Locale;
  messages: Messages;
  csrfToken: string;
}

/** The console's frame: its own header line, so an operator never mistakes it for an integrator's dashboard. */
function consoleFrame(view: OperatorBase & { title: string; operatorName?: string }) {
  return {
    locale: view.locale,
    messages: view.messages,
    title: `${view.title} · ${view.messages.operator.console}`,
  };
}

const ageHours = (iso: string, now: number) => Math.max(0, Math.floor((now - Date.parse(iso)) / 3_600_000));

export function accountsListPage(
  view: OperatorBase & { status: AccountStatus; accounts: Account[]; operatorName: string; now: number; notice?: string },
): string {
  const o = view.messages.operator;
  return renderPage(
    consoleFrame({ ...view, title: o.tabs[view.status] }),
    <>
      <div class="console-head">
        <h1>{o.console}</h1>
        <span>{view.operatorName}</span>
        <PostButton action="/operator/sign-out" csrfToken={view.csrfToken} label={view.messages.signOut} secondary />
      </div>
      <Flash notice={view.notice} />
      <nav class="tabs" aria-label={o.console}>
        {(['pending', 'active', 'suspended'] as const).map((status) => (
          <a href={`/operator?status=${status}`} {...(status === view.status ? { 'aria-current': 'page' } : {})}>
            {o.tabs[status]}
          </a>
        ))}
      </nav>
      {view.accounts.length === 0 ? (
        <p>{o.none}</p>
      ) : (
        <TableRegion label={o.tabs[view.status]}>
          <table>
            <thead>
              <tr>
                <th scope="col">{o.columns.name}</th>
                <th scope="col">{o.columns.email}</th>
                <th scope="col">{o.columns.created}</th>
                <th scope="col">{o.columns.waiting}</th>
              </tr>
            </thead>
            <tbody>
              {view.accounts.map((account) => (
                <tr>
                  <th scope="row">
                    <a href={`/operator/accounts/${account.id}`}>{account.name}</a>
                    <br />
                    <code class="id">{account.id}</code>
                  </th>
                  <td>{account.email}</td>
                  <td>{account.created_at.slice(0, 10)}</td>
                  <td>{o.age(ageHours(account.created_at, view.now))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </>,
  );
}

export function accountDetailPage(
  view: OperatorBase & {
    account: Account;
    owners: { email: string; name: string }[];
    keys: ApiKey[];
    balance: number;
    projects: ProjectOverview[];
    usage: Usage;
    nonce: string;
    notice?: string;
    alert?: string;
  },
): string {
  const o = view.messages.operator;
  const { account } = view;
  return renderPage(
    consoleFrame({ ...view, title: o.accountTitle(account.name) }),
    <>
      <p>
        <a href="/operator">← {o.console}</a>
      </p>
      <h1>{o.accountTitle(account.name)}</h1>
      <Flash notice={view.notice} alert={view.alert} />
      <dl class="facts">
        <dt>{o.status}</dt>
        <dd>
          <span class={`status-word status-${account.status}`}>{o.tabs[account.status]}</span>
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{account.id}</code>
        </dd>
        <dt>{o.columns.email}</dt>
        <dd>{account.email}</dd>
        <dt>{o.columns.created}</dt>
        <dd>{account.created_at}</dd>
        <dt>{o.owners}</dt>
        <dd>{view.owners.map((owner) => `${owner.name} <${owner.email}>`).join(', ') || '—'}</dd>
        <dt>{o.balance}</dt>
        <dd>{view.balance}</dd>
      </dl>
      <h2>{o.keys}</h2>
      {view.keys.length === 0 ? (
        <p>{o.noKeys}</p>
      ) : (
        <ul>
          {view.keys.map((key) => (
            <li>
              {key.name} · {key.mode} · <code class="id">{key.id}</code> · {key.scopes.join(', ')}
              {key.revoked_at ? ` · revoked ${key.revoked_at.slice(0, 10)}` : ''}
            </li>
          ))}
        </ul>
      )}
      <h2>{o.projects}</h2>
      {view.projects.length === 0 ? (
        <p>{o.noProjects}</p>
      ) : (
        <ul>
          {view.projects.map((project) => (
            <li>
              {project.name} · <code class="id">{project.id}</code> · {o.pointer('test', project.test_version)} ·{' '}
              {o.pointer('live', project.live_version)}
            </li>
          ))}
        </ul>
      )}
      <h2>{o.usageTitle(view.usage.month)}</h2>
      <TableRegion label={o.usageTitle(view.usage.month)}>
        <table>
          <thead>
            <tr>
              <th scope="col">{o.usageMode}</th>
              <th scope="col">{o.usageSessions}</th>
            </tr>
          </thead>
          <tbody>
            {(['test', 'live'] as const).map((mode) => {
              const counts = Object.entries(view.usage.sessions[mode]);
              return (
                <tr>
                  <th scope="row">{mode}</th>
                  <td>{counts.length === 0 ? '0' : counts.map(([status, count]) => `${status}: ${count}`).join(' · ')}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableRegion>
      <p>{o.tokensDebited(view.usage.tokens_debited)}</p>
      <h2>
        {o.approve} / {o.suspend}
      </h2>
      <form method="post" action={`/operator/accounts/${account.id}/decision`} novalidate>
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <div class="field">
          <label for="f-reason">{o.reason}</label>
          <p class="hint" id="h-reason">
            {o.reasonHint}
          </p>
          <textarea id="f-reason" name="reason" required maxLength={500} rows={3} aria-describedby="h-reason" />
        </div>
        {account.status !== 'active' ? (
          <button type="submit" name="decision" value="approve">
            {o.approve}
          </button>
        ) : null}{' '}
        {account.status !== 'suspended' ? (
          <button type="submit" name="decision" value="suspend" class="secondary">
            {o.suspend}
          </button>
        ) : null}
      </form>
      <h2>{o.credit}</h2>
      <form method="post" action={`/operator/accounts/${account.id}/credit`} novalidate>
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <input type="hidden" name="nonce" value={view.nonce} />
        <div class="field">
          <label for="f-tokens">{o.tokens}</label>
          <input id="f-tokens" name="tokens" type="number" min={1} max={1_000_000} required />
        </div>
        <div class="field">
          <label for="f-credit-reason">{o.reason}</label>
          <textarea id="f-credit-reason" name="reason" required maxLength={500} rows={2} />
        </div>
        <button type="submit">{o.credit}</button>
      </form>
    </>,
  );
}
