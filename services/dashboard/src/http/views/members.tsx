import type { Account } from '@idv/contracts';
import type { FieldErrors } from '../../domain/forms';
import type { Locale, Messages } from '../../domain/i18n';
import { ROLES } from '../../domain/roles';
import type { InvitationRecord, MemberRecord } from '../../adapters/members.repository';
import { ErrorSummary, Field, Flash, PostButton, renderPage, TableRegion } from './layout';

interface MembersBase {
  locale: Locale;
  messages: Messages;
  csrfToken: string;
}

export function membersPage(
  view: MembersBase & {
    account: Account;
    members: MemberRecord[];
    invitations: InvitationRecord[];
    notice?: string;
    alert?: string;
  },
): string {
  const t = view.messages.members;
  return renderPage(
    {
      locale: view.locale,
      messages: view.messages,
      title: t.title,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'members', team: true },
    },
    <>
      <h1>{t.title}</h1>
      <p class="lead">{t.lead}</p>
      <Flash notice={view.notice} alert={view.alert} />
      <TableRegion label={t.title}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t.columns.name}</th>
              <th scope="col">{t.columns.email}</th>
              <th scope="col">{t.columns.role}</th>
              <th scope="col">{t.columns.action}</th>
            </tr>
          </thead>
          <tbody>
            {view.members.map((member) => (
              <tr>
                <th scope="row">{member.name}</th>
                <td>{member.email}</td>
                <td>
                  <form method="post" action={`/members/${member.userId}/role`} class="inline">
                    <input type="hidden" name="_csrf" value={view.csrfToken} />
                    <label class="visually-hidden" for={`role-${member.userId}`}>
                      {t.roleOf(member.name)}
                    </label>
                    <select id={`role-${member.userId}`} name="role">
                      {ROLES.map((role) => (
                        <option value={role} {...(role === member.role ? { selected: true } : {})}>
                          {t.roles[role]}
                        </option>
                      ))}
                    </select>{' '}
                    <button type="submit" class="secondary">
                      {t.changeRole}
                    </button>
                  </form>
                </td>
                <td>
                  <PostButton action={`/members/${member.userId}/remove`} csrfToken={view.csrfToken} label={t.remove} secondary />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
      {view.invitations.length ? (
        <>
          <h2>{t.pending}</h2>
          <ul>
            {view.invitations.map((invitation) => (
              <li>
                {invitation.email} · {t.roles[invitation.role]}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h2>{t.invite}</h2>
      <form method="post" action="/members/invite" novalidate>
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <Field name="email" type="email" label={view.messages.email} autocomplete="off" messages={view.messages} errors={{}} />
        <div class="field">
          <label for="f-role">{t.role}</label>
          <select id="f-role" name="role">
            {ROLES.map((role) => (
              <option value={role} selected={role === 'developer'}>
                {t.roles[role]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">{t.send}</button>
      </form>
    </>,
  );
}

/**
 * An invitation to an address that already has a user: signed in as them, one button joins; signed in as
 * someone else, sign out first; not signed in, sign in and open the link again.
 */
export function joinInvitationPage(
  view: MembersBase & {
    accountName: string;
    email: string;
    role: 'owner' | 'developer' | 'viewer';
    token: string;
    signedInAs: 'invited' | 'other' | 'nobody';
  },
): string {
  const t = view.messages.members;
  return renderPage(
    { locale: view.locale, messages: view.messages, title: t.acceptTitle(view.accountName) },
    <>
      <h1>{t.acceptTitle(view.accountName)}</h1>
      {view.signedInAs === 'invited' ? (
        <>
          <p>{t.joinLead(view.email, t.roles[view.role])}</p>
          <form method="post" action="/invitations/join" novalidate>
            <input type="hidden" name="_csrf" value={view.csrfToken} />
            <input type="hidden" name="token" value={view.token} />
            <button type="submit">{t.join}</button>
          </form>
        </>
      ) : (
        <>
          <p>{t.signInToJoin(view.email)}</p>
          {view.signedInAs === 'other' ? (
            <form method="post" action="/sign-out" novalidate>
              <input type="hidden" name="_csrf" value={view.csrfToken} />
              <button type="submit" class="secondary">
                {view.messages.signOut}
              </button>
            </form>
          ) : (
            <p>
              <a href="/sign-in">{view.messages.signIn}</a>
            </p>
          )}
        </>
      )}
    </>,
  );
}

export function acceptInvitationPage(
  view: MembersBase & {
    accountName: string;
    email: string;
    role: 'owner' | 'developer' | 'viewer';
    token: string;
    errors?: FieldErrors;
  },
): string {
  const t = view.messages.members;
  const errors = view.errors ?? {};
  return renderPage(
    { locale: view.locale, messages: view.messages, title: t.acceptTitle(view.accountName) },
    <>
      <h1>{t.acceptTitle(view.accountName)}</h1>
      <p>{t.acceptLead(view.email, t.roles[view.role])}</p>
      <ErrorSummary messages={view.messages} errors={errors} />
      <form method="post" action="/invitations/accept" novalidate>
        <input type="hidden" name="_csrf" value={view.csrfToken} />
        <input type="hidden" name="token" value={view.token} />
        <Field name="name" label={view.messages.ownerName} autocomplete="name" messages={view.messages} errors={errors} />
        <Field
          name="password"
          type="password"
          label={view.messages.password}
          hint={view.messages.passwordHint}
          autocomplete="new-password"
          messages={view.messages}
          errors={errors}
        />
        <button type="submit">{t.accept}</button>
      </form>
    </>,
  );
}
