import type { EvidenceArtifact } from '@idv/contracts';
import type { Locale, Messages } from '../../domain/i18n';
import { isEvidenceArtifact } from '../../domain/session-images';
import type { TrailEntry } from '../../use-cases/access-trail';
import type { ShownImages } from '../../use-cases/session-images';
import { timeOf, type SignedInView } from './layout';
import { AuditedShow, sessionSubPage } from './session-page';

/** The session page's images section: the audited "show" for a role that may, a refusal for one that may not. */
export function ImagesSection(props: { messages: Messages; sessionId: string; offer: 'show' | 'forbidden'; csrfToken: string }) {
  const t = props.messages.sessionImages;
  return (
    <section aria-labelledby="images-title">
      <h2 id="images-title">{t.title}</h2>
      {props.offer === 'forbidden' ? (
        <p>{t.forbidden}</p>
      ) : (
        <AuditedShow
          action={`/sessions/${props.sessionId}/images`}
          csrfToken={props.csrfToken}
          hidden={t.hidden}
          show={t.show}
          note={t.showNote}
        />
      )}
    </section>
  );
}

/** The images "show" answers with: each captured artifact, from this origin's audited image route. */
export function sessionImagesPage(view: SignedInView & ShownImages): string {
  const t = view.messages.sessionImages;
  return sessionSubPage(
    view,
    { title: t.pageTitle(view.sessionId), back: t.back, lead: t.lead },
    <>
      {view.removedAt ? <p>{t.removed(timeOf(view.locale, view.removedAt))}</p> : null}
      {view.captures.length === 0 ? (
        !view.removedAt ? (
          <p>{t.none}</p>
        ) : null
      ) : (
        <div class="captures">
          {view.captures.map((capture) => (
            <figure>
              <img
                src={`/sessions/${view.sessionId}/images/${capture.artifact}`}
                alt={t.alt(t.artifacts[capture.artifact], view.sessionId)}
                loading="lazy"
                decoding="async"
              />
              <figcaption>
                <strong>{t.artifacts[capture.artifact]}</strong> ·{' '}
                <time dateTime={capture.captured_at}>{t.capturedAt(timeOf(view.locale, capture.captured_at, 'second'))}</time>
              </figcaption>
            </figure>
          ))}
        </div>
      )}
    </>,
  );
}

/** An image's artifact as an audit entry's target names it (`{session}/{artifact}`), when it does. */
function artifactOf(target: string | null): EvidenceArtifact | null {
  const artifact = target?.split('/')[1];
  return artifact !== undefined && isEvidenceArtifact(artifact) ? artifact : null;
}

/** One row of a session's access trail: a member's (or an operator's) audit entry, or a use of an evidence link. */
export function TrailRow(props: { locale: Locale; messages: Messages; entry: TrailEntry }) {
  const { messages, entry } = props;
  const t = messages.sessionImages;
  const at = <time dateTime={entry.at.toISOString()}>{timeOf(props.locale, entry.at, 'second')}</time>;
  if (entry.kind === 'download') {
    const { download } = entry;
    return (
      <tr>
        <td>{at}</td>
        <td>{t.trail.who}</td>
        <td>{t.trail.outcomes[download.outcome](t.artifacts[download.artifact])}</td>
        <td>{download.client_address}</td>
      </tr>
    );
  }
  const { record } = entry;
  const artifact = record.action === 'session.image_opened' ? artifactOf(record.target) : null;
  return (
    <tr>
      <td>{at}</td>
      <td>
        {record.actor.kind === 'member'
          ? `${record.actor.name} (${record.actor.email})`
          : record.actor.kind === 'operator'
            ? messages.audit.operator
            : messages.audit.nobody}
      </td>
      <td>{artifact ? t.trail.imageOpened(t.artifacts[artifact]) : (messages.audit.actions[record.action] ?? record.action)}</td>
      <td>{record.address ?? ''}</td>
    </tr>
  );
}
