import type { Account } from '@idv/contracts';
import type { AuditRecord } from '../../adapters/audit.repository';
import type { MemberRecord } from '../../adapters/members.repository';
import { AUDIT_GROUPS, auditQuery, type AuditFilter, type AuditFilterField } from '../../domain/audit';
import type { Locale, Messages } from '../../domain/i18n';
import { renderPage, TableRegion, timeOf } from './layout';

/** The account's audit log: a filter form (a GET: the filters are in the address, to share or keep), the entries, older ones, the export. */
export function auditPage(view: {
  locale: Locale;
  messages: Messages;
  csrfToken: string;
  account: Account;
  filter: AuditFilter;
  invalid: AuditFilterField[];
  entries: AuditRecord[];
  older: number | null;
  members: MemberRecord[];
}): string {
  const a = view.messages.audit;
  const { filter } = view;
  const selected = (on: boolean) => (on ? { selected: true } : {});
  return renderPage(
    {
      locale: view.locale,
      messages: view.messages,
      title: a.title,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'audit', team: true },
    },
    <>
      <h1>{a.title}</h1>
      <p class="lead">{a.lead}</p>
      {view.invalid.length > 0 ? (
        <div class="error-summary" role="alert">
          <ul>
            {view.invalid.map((field) => (
              <li>{a.invalid[field]}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <form method="get" action="/audit" class="filters" aria-label={a.filters}>
        <div class="field">
          <label for="f-group">{a.group}</label>
          <select id="f-group" name="group">
            <option value="">{a.allGroups}</option>
            {AUDIT_GROUPS.map((group) => (
              <option value={group} {...selected(filter.group === group)}>
                {a.groups[group]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-actor">{a.actor}</label>
          <select id="f-actor" name="actor">
            <option value="">{a.allActors}</option>
            {view.members.map((member) => (
              <option value={member.userId} {...selected(filter.actor === member.userId)}>
                {member.name} ({member.email})
              </option>
            ))}
            <option value="operator" {...selected(filter.actor === 'operator')}>
              {a.operator}
            </option>
          </select>
        </div>
        <div class="field">
          <label for="f-from">{a.from}</label>
          <input id="f-from" name="from" type="date" value={filter.from ?? ''} />
        </div>
        <div class="field">
          <label for="f-to">{a.to}</label>
          <input id="f-to" name="to" type="date" value={filter.to ?? ''} />
        </div>
        <button type="submit">{a.apply}</button> <a href="/audit">{a.clear}</a>
      </form>
      <p>
        <a href={`/audit.csv${auditQuery(filter)}`} download>
          {a.export}
        </a>
      </p>
      {view.entries.length === 0 ? (
        <p>{a.empty}</p>
      ) : (
        <TableRegion label={a.title}>
          <table>
            <thead>
              <tr>
                <th scope="col">{a.columns.at}</th>
                <th scope="col">{a.columns.actor}</th>
                <th scope="col">{a.columns.action}</th>
                <th scope="col">{a.columns.target}</th>
                <th scope="col">{a.columns.address}</th>
              </tr>
            </thead>
            <tbody>
              {view.entries.map((entry) => (
                <tr>
                  <td>
                    <time dateTime={entry.at.toISOString()}>{timeOf(view.locale, entry.at, 'second')}</time>
                  </td>
                  <td>
                    {entry.actor.kind === 'member'
                      ? `${entry.actor.name} (${entry.actor.email})`
                      : entry.actor.kind === 'operator'
                        ? a.operator
                        : entry.actor.kind === 'service'
                          ? view.messages.notices.serviceActor
                          : a.nobody}
                  </td>
                  <td>{a.actions[entry.action] ?? entry.action}</td>
                  <td>
                    <code>{entry.target ?? ''}</code>
                  </td>
                  <td>{entry.address ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <p>
        {filter.before !== null ? <a href={`/audit${auditQuery(filter)}`}>{a.newest}</a> : null}{' '}
        {view.older !== null ? <a href={`/audit${auditQuery(filter, view.older)}`}>{a.older}</a> : null}
      </p>
    </>,
  );
}
