import type { Account, Mode, ProjectOverview } from '@idv/contracts';
import type { DiffLine } from '../../domain/diff';
import type { Locale, Messages } from '../../domain/i18n';
import type { ConfigProblem, HistoryEntry, TrySession } from '../../use-cases/projects';
import { Flash, renderPage, TableRegion } from './layout';

interface ProjectsBase {
  locale: Locale;
  messages: Messages;
  csrfToken: string;
  account: Account;
}

const frame = (view: ProjectsBase, title: string) => ({
  locale: view.locale,
  messages: view.messages,
  title,
  signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'projects' as const },
});

function ModeBadge(props: { mode: Mode; messages: Messages }) {
  return <span class={`mode mode-${props.mode}`}>{props.messages.keys.modes[props.mode]}</span>;
}

function Pointers(props: { project: ProjectOverview; messages: Messages }) {
  const p = props.messages.projects;
  return (
    <span>
      <ModeBadge mode="test" messages={props.messages} /> {props.project.test_version ?? p.unpublished} ·{' '}
      <ModeBadge mode="live" messages={props.messages} /> {props.project.live_version ?? p.unpublished}
    </span>
  );
}

function Hidden(props: { name: string; value: string }) {
  return <input type="hidden" name={props.name} value={props.value} />;
}

export function projectsPage(
  view: ProjectsBase & { projects: ProjectOverview[]; canWrite: boolean; nonce: string; alert?: string },
): string {
  const p = view.messages.projects;
  return renderPage(
    frame(view, p.title),
    <>
      <h1>{p.title}</h1>
      <p class="lead">{p.lead}</p>
      <Flash alert={view.alert} />
      {view.projects.length === 0 ? (
        <p>{p.none}</p>
      ) : (
        <ul class="projects">
          {view.projects.map((project) => (
            <li>
              <a href={`/projects/${project.id}`}>{project.name}</a> <code class="id">{project.id}</code>
              <br />
              <Pointers project={project} messages={view.messages} />
            </li>
          ))}
        </ul>
      )}
      {view.canWrite ? (
        <form method="post" action="/projects" novalidate>
          <Hidden name="_csrf" value={view.csrfToken} />
          <Hidden name="nonce" value={view.nonce} />
          <div class="field">
            <label for="f-name">{p.name}</label>
            <input id="f-name" name="name" type="text" required maxLength={200} />
          </div>
          <button type="submit">{p.create}</button>
        </form>
      ) : null}
    </>,
  );
}

export function projectPage(
  view: ProjectsBase & {
    project: ProjectOverview;
    draft: string;
    problems: ConfigProblem[];
    canWrite: boolean;
    nonce: string;
    editorTab: string;
    notice?: string;
    alert?: string;
  },
): string {
  const p = view.messages.projects;
  const { project } = view;
  return renderPage(
    frame(view, project.name),
    <>
      <p>
        <a href="/projects">← {p.title}</a>
      </p>
      <h1>{project.name}</h1>
      <p>
        <code class="id">{project.id}</code> · {p.pointers}: <Pointers project={project} messages={view.messages} /> ·{' '}
        <a href={`/projects/${project.id}/history`}>{p.history}</a>
      </p>
      <nav class="tabs" aria-label={p.draftTitle}>
        <a href={`/projects/${project.id}`}>{view.editorTab}</a>
        <a href={`/projects/${project.id}/json`} aria-current="page">
          JSON
        </a>
      </nav>
      <Flash notice={view.notice} alert={view.alert} />
      {view.problems.length ? (
        <div class="error-summary" role="alert" id="problems">
          <p>{p.problems}</p>
          <ul>
            {view.problems.map((problem) => (
              <li>
                <code>{problem.path}</code>: {problem.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <form method="post" action={`/projects/${project.id}/draft`} novalidate>
        <Hidden name="_csrf" value={view.csrfToken} />
        <div class="field">
          <label for="f-config">{p.draftTitle}</label>
          <p class="hint" id="h-config">
            {p.draftHint}
          </p>
          <textarea
            id="f-config"
            name="config"
            rows={24}
            spellcheck={false}
            class="code"
            aria-describedby="h-config"
            readOnly={!view.canWrite}
            {...(view.problems.length ? { 'aria-invalid': 'true' } : {})}
          >
            {view.draft}
          </textarea>
        </div>
        {view.canWrite ? <DraftActions messages={view.messages} nonce={view.nonce} /> : null}
      </form>
    </>,
  );
}

/** A draft's buttons: save it, save it and try it, or save it and go on to publish it to test or to live (after the diff). */
export function DraftActions(props: { messages: Messages; nonce: string }) {
  const p = props.messages.projects;
  return (
    <p class="actions">
      <Hidden name="nonce" value={props.nonce} />
      <button type="submit" name="then" value="save">
        {p.save}
      </button>{' '}
      <button type="submit" name="then" value="try" class="secondary">
        {p.tries.start}
      </button>{' '}
      <button type="submit" name="then" value="publish_test" class="secondary">
        {p.publishTo.test}
      </button>{' '}
      <button type="submit" name="then" value="publish_live" class="secondary">
        {p.publishTo.live}
      </button>
    </p>
  );
}

/** The project's rename form, under its draft. */
export function RenameProject(props: { project: ProjectOverview; csrfToken: string; messages: Messages }) {
  const p = props.messages.projects;
  const { project } = props;
  return (
    <form method="post" action={`/projects/${project.id}/name`} novalidate class="rename">
      <Hidden name="_csrf" value={props.csrfToken} />
      <div class="field">
        <label for="f-rename">{p.name}</label>
        <input id="f-rename" name="name" type="text" required maxLength={200} value={project.name} />
      </div>
      <button type="submit" class="secondary">
        {p.rename}
      </button>
    </form>
  );
}

function Diff(props: { lines: DiffLine[]; messages: Messages }) {
  if (!props.lines.some((line) => line.kind !== 'same')) return <p>{props.messages.projects.noChanges}</p>;
  return (
    <pre class="diff" aria-label="diff" tabIndex={0}>
      {props.lines.map((line) => (
        <span class={`diff-${line.kind}`}>
          {line.kind === 'added' ? (
            <ins>+ {line.text}</ins>
          ) : line.kind === 'removed' ? (
            <del>- {line.text}</del>
          ) : (
            `  ${line.text}`
          )}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

export function publishPreviewPage(
  view: ProjectsBase & {
    project: ProjectOverview;
    mode: Mode;
    diff: DiffLine[];
    currentVersion: string | null;
    source: string;
    alert?: string;
  },
): string {
  const p = view.messages.projects;
  const modeName = view.messages.keys.modes[view.mode];
  return renderPage(
    frame(view, p.previewTitle(modeName)),
    <>
      <h1>
        {p.previewTitle(modeName)} <ModeBadge mode={view.mode} messages={view.messages} />
      </h1>
      <p>{view.project.name}</p>
      <Flash alert={view.alert} />
      <p>{p.previewLead(view.currentVersion)}</p>
      <Diff lines={view.diff} messages={view.messages} />
      <form method="post" action={`/projects/${view.project.id}/publish`}>
        <Hidden name="_csrf" value={view.csrfToken} />
        <Hidden name="mode" value={view.mode} />
        <Hidden name="source" value={view.source} />
        <Hidden name="against" value={view.currentVersion ?? 'none'} />
        <button type="submit">{p.confirm}</button> <a href={`/projects/${view.project.id}`}>{p.cancel}</a>
      </form>
    </>,
  );
}

export function historyPage(
  view: ProjectsBase & { project: ProjectOverview; entries: HistoryEntry[]; canWrite: boolean; notice?: string },
): string {
  const p = view.messages.projects;
  const { project } = view;
  return renderPage(
    frame(view, `${p.history} · ${project.name}`),
    <>
      <p>
        <a href={`/projects/${project.id}`}>← {project.name}</a>
      </p>
      <h1>{p.history}</h1>
      <Flash notice={view.notice} />
      <TableRegion label={p.history}>
        <table>
          <thead>
            <tr>
              <th scope="col">{p.columns.version}</th>
              <th scope="col">{p.columns.mode}</th>
              <th scope="col">{p.columns.created}</th>
              <th scope="col">{p.columns.by}</th>
              <th scope="col">{p.columns.pointers}</th>
              <th scope="col">{p.columns.actions}</th>
            </tr>
          </thead>
          <tbody>
            {view.entries.map((entry, index) => {
              const previous = view.entries[index + 1];
              return (
                <tr>
                  <th scope="row">
                    <code>{entry.id}</code>
                  </th>
                  <td>
                    <ModeBadge mode={entry.mode} messages={view.messages} />
                  </td>
                  <td>{entry.created_at.slice(0, 16).replace('T', ' ')}</td>
                  <td>{entry.publishedBy ?? '—'}</td>
                  <td>
                    {entry.pointedBy.map((mode) => (
                      <ModeBadge mode={mode} messages={view.messages} />
                    ))}
                  </td>
                  <td>
                    {previous ? (
                      <a href={`/projects/${project.id}/diff?from=${previous.id}&to=${entry.id}`}>{p.compare}</a>
                    ) : null}
                    {view.canWrite
                      ? (['test', 'live'] as const)
                          .filter((mode) => !entry.pointedBy.includes(mode))
                          .map((mode) => (
                            <form method="post" action={`/projects/${project.id}/publish`} class="inline">
                              <Hidden name="_csrf" value={view.csrfToken} />
                              <Hidden name="mode" value={mode} />
                              <Hidden name="source" value={entry.id} />
                              <button type="submit" class="secondary">
                                {p.restoreTo[mode]}
                              </button>
                            </form>
                          ))
                      : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableRegion>
    </>,
  );
}

export function diffPage(view: ProjectsBase & { project: ProjectOverview; from: string; to: string; diff: DiffLine[] }): string {
  const p = view.messages.projects;
  return renderPage(
    frame(view, p.diffTitle(view.from, view.to)),
    <>
      <p>
        <a href={`/projects/${view.project.id}/history`}>← {p.history}</a>
      </p>
      <h1>{p.diffTitle(view.from, view.to)}</h1>
      <Diff lines={view.diff} messages={view.messages} />
    </>,
  );
}

/**
 * A try of the draft: the link to open here and its QR for a phone while it is unopened, then the status
 * and each step's verdict (never the person's data: a viewer may see this page too).
 */
export function tryPage(view: ProjectsBase & { project: ProjectOverview; session: TrySession; qrSvg: string | null }): string {
  const t = view.messages.projects.tries;
  const { project, session } = view;
  const here = `/projects/${project.id}/tries/${session.id}`;
  return renderPage(
    frame(view, `${t.title} · ${project.name}`),
    <>
      <p>
        <a href={`/projects/${project.id}`}>← {t.backToEditor}</a>
      </p>
      <h1>{t.title}</h1>
      <p class="lead">
        <ModeBadge mode="test" messages={view.messages} /> {t.lead}
      </p>
      {session.url ? (
        <div class="try-link">
          <p>
            <a class="button" href={session.url} target="_blank" rel="noopener noreferrer">
              {t.openHere}
            </a>
          </p>
          {view.qrSvg ? (
            <>
              <p>{t.scan}</p>
              <div class="qr" role="img" aria-label={t.scan} dangerouslySetInnerHTML={{ __html: view.qrSvg }} />
            </>
          ) : null}
        </div>
      ) : (
        <p class="hint">{t.linkGone}</p>
      )}
      <p role="status" id="try-status">
        {t.status}: <strong data-status={session.status}>{t.statuses[session.status]}</strong>
      </p>
      {session.result?.reason_codes.length ? (
        <p>
          {t.reasons}:{' '}
          {session.result.reason_codes.map((code, index) => (
            <>
              {index ? ', ' : null}
              <code>{code}</code>
            </>
          ))}
        </p>
      ) : null}
      {session.result ? (
        <TableRegion label={t.title}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t.step}</th>
                <th scope="col">{t.verdict}</th>
              </tr>
            </thead>
            <tbody>
              {session.result.steps.map((step) => (
                <tr>
                  <th scope="row">
                    <code>{step.id}</code> ({step.type})
                  </th>
                  <td>{t.verdicts[step.verdict]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      ) : null}
      <p>
        <a href={here}>{t.refresh}</a>
      </p>
    </>,
  );
}
