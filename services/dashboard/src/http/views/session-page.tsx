import type { ComponentChildren } from 'preact';
import { renderPage, type SignedInView } from './layout';

/** A page of a session's own (its images, its access trail): in the sessions section, a way back to the session, its title and lead. */
export function sessionSubPage(
  view: SignedInView & { sessionId: string },
  words: { title: string; back: string; lead: string },
  body: ComponentChildren,
): string {
  return renderPage(
    {
      locale: view.locale,
      messages: view.messages,
      title: words.title,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'sessions', team: view.team },
    },
    <>
      <p>
        <a href={`/sessions/${view.sessionId}`}>{words.back}</a>
      </p>
      <h1>{words.title}</h1>
      <p class="lead">{words.lead}</p>
      {body}
    </>,
  );
}

/**
 * What is held back until asked for (personal data, images): a word that it is hidden, and the "show" that
 * opens it: a POST with the CSRF token (an audited action, never a link a crawler follows).
 */
export function AuditedShow(props: { action: string; csrfToken: string; hidden: string; show: string; note: string }) {
  return (
    <>
      <p>{props.hidden}</p>
      <form method="post" action={props.action}>
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <button type="submit">{props.show}</button>
        <span class="hint"> {props.note}</span>
      </form>
    </>
  );
}
