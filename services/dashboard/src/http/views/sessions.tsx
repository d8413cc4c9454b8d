import { OUTCOMES, SESSION_STATUSES, type AccountSessionList, type ProjectOverview } from '@idv/contracts';
import { sessionsAddress, type SessionsFilter, type SessionsFilterField } from '../../domain/sessions';
import type { TrailEntry } from '../../use-cases/access-trail';
import type { SessionView } from '../../use-cases/sessions';
import { PostButton, renderPage, TableRegion, timeOf, type SignedInView } from './layout';
import { ImagesSection, TrailRow } from './session-images';
import { AuditedShow, sessionSubPage } from './session-page';
import { TimelineList } from './timeline';

const selected = (on: boolean) => (on ? { selected: true } : {});

/** The account's sessions: a filter form (a GET, so a filtered list can be kept or shared), the page, older ones. */
export function sessionsListPage(
  view: SignedInView & {
    filter: SessionsFilter;
    invalid: SessionsFilterField[];
    list: AccountSessionList;
    projects: ProjectOverview[];
    staleCursor: boolean;
  },
): string {
  const t = view.messages.sessions;
  const { filter, list } = view;
  const projectName = new Map(view.projects.map((project) => [project.id, project.name]));
  const alerts = [...view.invalid.map((field) => t.invalid[field]), ...(view.staleCursor ? [t.staleCursor] : [])];
  return renderPage(
    {
      locale: view.locale,
      messages: view.messages,
      title: t.title,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'sessions', team: view.team },
    },
    <>
      <h1>{t.title}</h1>
      <p class="lead">{t.lead}</p>
      {alerts.length > 0 ? (
        <div class="error-summary" role="alert">
          <ul>
            {alerts.map((alert) => (
              <li>{alert}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <form method="get" action="/sessions" class="filters" aria-label={t.filters}>
        <div class="field">
          <label for="f-mode">{t.mode}</label>
          <select id="f-mode" name="mode">
            {(['live', 'test'] as const).map((mode) => (
              <option value={mode} {...selected(filter.mode === mode)}>
                {t.modes[mode]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-status">{t.status}</label>
          <select id="f-status" name="status">
            <option value="">{t.anyStatus}</option>
            {SESSION_STATUSES.map((status) => (
              <option value={status} {...selected(filter.status === status)}>
                {t.statuses[status]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-outcome">{t.outcome}</label>
          <select id="f-outcome" name="outcome">
            <option value="">{t.anyOutcome}</option>
            {OUTCOMES.map((outcome) => (
              <option value={outcome} {...selected(filter.outcome === outcome)}>
                {t.outcomes[outcome]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-reason">{t.reason}</label>
          <input id="f-reason" name="reason" type="text" value={filter.reason ?? ''} aria-describedby="h-reason" />
          <p class="hint" id="h-reason">
            {t.reasonHint}
          </p>
        </div>
        <div class="field">
          <label for="f-project">{t.project}</label>
          <select id="f-project" name="project">
            <option value="">{t.anyProject}</option>
            {view.projects.map((project) => (
              <option value={project.id} {...selected(filter.project === project.id)}>
                {project.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-ref">{t.ref}</label>
          <input id="f-ref" name="ref" type="text" maxLength={255} value={filter.ref ?? ''} />
        </div>
        <div class="field">
          <label for="f-from">{t.from}</label>
          <input id="f-from" name="from" type="date" value={filter.from ?? ''} />
        </div>
        <div class="field">
          <label for="f-to">{t.to}</label>
          <input id="f-to" name="to" type="date" value={filter.to ?? ''} />
        </div>
        <button type="submit">{t.apply}</button> <a href="/sessions">{t.clear}</a>
      </form>
      {list.data.length === 0 ? (
        <p>{t.empty}</p>
      ) : (
        <TableRegion label={t.title}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t.columns.created}</th>
                <th scope="col">{t.columns.id}</th>
                <th scope="col">{t.columns.status}</th>
                <th scope="col">{t.columns.project}</th>
                <th scope="col">{t.columns.ref}</th>
                <th scope="col">{t.columns.reasons}</th>
                <th scope="col">{t.columns.completed}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((session) => (
                <tr>
                  <td>
                    <time dateTime={session.created_at}>{timeOf(view.locale, session.created_at, 'second')}</time>
                  </td>
                  <td>
                    <a href={`/sessions/${session.id}`}>
                      <code>{session.id}</code>
                    </a>
                  </td>
                  <td>{t.statuses[session.status]}</td>
                  <td>{projectName.get(session.project_id) ?? session.project_id}</td>
                  <td>{session.external_ref ?? ''}</td>
                  <td>
                    {session.reason_codes.map((code) => (
                      <code>{code}</code>
                    ))}
                  </td>
                  <td>
                    {session.completed_at ? (
                      <time dateTime={session.completed_at}>{timeOf(view.locale, session.completed_at, 'second')}</time>
                    ) : (
                      ''
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <p>
        {filter.cursor ? <a href={sessionsAddress(filter)}>{t.newest}</a> : null}{' '}
        {list.has_more && list.next_cursor ? <a href={sessionsAddress(filter, list.next_cursor)}>{t.older}</a> : null}
      </p>
    </>,
  );
}

/** A session: its summary, what happened to it, its personal data behind an audited "show", cancel. */
export function sessionDetailPage(view: SignedInView & SessionView): string {
  const t = view.messages.sessions;
  const d = t.detail;
  const { session } = view;
  const result = session.result;
  const when = (at: string) => <time dateTime={at}>{timeOf(view.locale, at, 'second')}</time>;
  return renderPage(
    {
      locale: view.locale,
      messages: view.messages,
      title: `${t.columns.id} ${session.id}`,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'sessions', team: view.team },
    },
    <>
      <p>
        <a href="/sessions">{d.back}</a>
      </p>
      <h1>
        {t.columns.id} <code>{session.id}</code>
      </h1>
      <h2>{d.summary}</h2>
      <dl class="facts">
        <dt>{t.status}</dt>
        <dd>{t.statuses[session.status]}</dd>
        <dt>{t.mode}</dt>
        <dd>{t.modes[session.mode]}</dd>
        <dt>{t.project}</dt>
        <dd>
          {view.project ? <a href={`/projects/${view.project.id}`}>{view.project.name}</a> : <code>{session.project_id}</code>}
        </dd>
        <dt>{d.configVersion}</dt>
        <dd>
          <code>{session.config_version}</code>
        </dd>
        <dt>{t.columns.created}</dt>
        <dd>
          {when(session.created_at)} · {view.key ? d.createdBy(view.key.name) : session.try ? d.createdByTry : d.createdByUnknown}
        </dd>
        {session.external_ref !== undefined ? (
          <>
            <dt>{t.ref}</dt>
            <dd>{session.external_ref}</dd>
          </>
        ) : null}
        {session.completed_at ? (
          <>
            <dt>{d.completed}</dt>
            <dd>{when(session.completed_at)}</dd>
          </>
        ) : null}
        {result ? (
          <>
            <dt>{d.reasons}</dt>
            <dd>{result.reason_codes.length > 0 ? result.reason_codes.map((code) => <code>{code}</code>) : d.noReasons}</dd>
          </>
        ) : null}
      </dl>
      {result && result.steps.length > 0 ? (
        <>
          <h2>{d.steps}</h2>
          <ul>
            {result.steps.map((step) => (
              <li>
                <code>{step.id}</code> ({step.type}): {d.verdicts[step.verdict]}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {view.mayCancel ? (
        <section aria-labelledby="cancel-title">
          <h2 id="cancel-title">{d.cancel}</h2>
          <p>{d.cancelNote}</p>
          <PostButton action={`/sessions/${session.id}/cancel`} csrfToken={view.csrfToken} label={d.cancel} secondary />
        </section>
      ) : null}
      <h2>{d.timeline}</h2>
      {view.timeline.length === 0 ? (
        <p>{d.timelineEmpty}</p>
      ) : (
        <TimelineList locale={view.locale} messages={view.messages} items={view.timeline} />
      )}
      <h2>{d.personalData}</h2>
      <PersonalData view={view} />
      {view.images ? (
        <ImagesSection messages={view.messages} sessionId={session.id} offer={view.images} csrfToken={view.csrfToken} />
      ) : null}
      {view.mayReadTrail ? (
        <p>
          <a href={`/sessions/${session.id}/access`}>{d.accessTrail}</a>
        </p>
      ) : null}
    </>,
  );
}

function PersonalData(props: { view: SignedInView & SessionView }) {
  const { view } = props;
  const d = view.messages.sessions.detail;
  const result = view.session.result;
  if (!view.mayShowPersonalData) {
    // Whether there is anything to show is said only to a role that may see it.
    return <p>{view.personalDataShown || !result ? d.personalDataNone : d.personalDataForbidden}</p>;
  }
  if (!view.personalDataShown || !result) {
    return (
      <AuditedShow
        action={`/sessions/${view.session.id}/personal-data`}
        csrfToken={view.csrfToken}
        hidden={d.personalDataHidden}
        show={d.show}
        note={d.showNote}
      />
    );
  }
  return (
    <>
      {result.document ? (
        <>
          <h3>{d.document}</h3>
          <dl class="facts">
            {Object.entries(result.document).map(([field, value]) => (
              <>
                <dt>{d.documentFields[field] ?? field}</dt>
                <dd>{value}</dd>
              </>
            ))}
          </dl>
        </>
      ) : null}
      {result.document_removed_at ? <p>{d.documentRemoved(timeOf(view.locale, result.document_removed_at))}</p> : null}
      {result.verified_channels ? (
        <>
          <h3>{d.channels}</h3>
          <dl class="facts">
            {result.verified_channels.email ? (
              <>
                <dt>{d.email}</dt>
                <dd>{result.verified_channels.email}</dd>
              </>
            ) : null}
            {result.verified_channels.phone ? (
              <>
                <dt>{d.phone}</dt>
                <dd>{result.verified_channels.phone}</dd>
              </>
            ) : null}
          </dl>
        </>
      ) : null}
      {result.form_data ? (
        <>
          <h3>{d.formData}</h3>
          <dl class="facts">
            {Object.entries(result.form_data).map(([field, value]) => (
              <>
                <dt>
                  <code>{field}</code>
                </dt>
                <dd>{value}</dd>
              </>
            ))}
          </dl>
        </>
      ) : null}
    </>
  );
}

/** Who saw a session's personal data, newest first. */
export function accessTrailPage(view: SignedInView & { sessionId: string; entries: TrailEntry[] }): string {
  const t = view.messages.sessions.trail;
  return sessionSubPage(
    view,
    { title: t.title(view.sessionId), back: t.back, lead: t.lead },
    <>
      {view.entries.length === 0 ? (
        <p>{t.empty}</p>
      ) : (
        <TableRegion label={t.title(view.sessionId)}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t.columns.at}</th>
                <th scope="col">{t.columns.who}</th>
                <th scope="col">{t.columns.what}</th>
                <th scope="col">{t.columns.address}</th>
              </tr>
            </thead>
            <tbody>
              {view.entries.map((entry) => (
                <TrailRow locale={view.locale} messages={view.messages} entry={entry} />
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <p>
        <a href={`/sessions/${view.sessionId}/access.csv`}>{t.export}</a>
      </p>
    </>,
  );
}
