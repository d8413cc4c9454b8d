import type express from 'express';
import type { Request, Response } from 'express';
import { formFields, parseSignIn } from '../domain/forms';
import { can } from '../domain/roles';
import { findUserByEmail } from '../adapters/users.repository';
import {
  acceptInvitationWith,
  changeRole,
  invitationOf,
  invite,
  joinWithInvitation,
  membersPage as membersOf,
  removeMember,
  roleOf,
} from '../use-cases/members';
import type { DashboardPorts } from '../use-cases/ports';
import type { Viewer } from '../use-cases/sign-in';
import { redirect, sendHtml } from './respond';
import { stateOf, type PageTools, type SignedInRoute } from './page-tools';
import { acceptInvitationPage, joinInvitationPage, membersPage } from './views/members';
import { messagePage } from './views/pages';

/** The team: an owner's list of members and invitations, an invitation by e-mail with a role, a removal. */
export function mountMemberPages(router: express.Router, ports: DashboardPorts, tools: PageTools, signedIn: SignedInRoute): void {
  const { cookies, csrfToken, post, page, forbidden } = tools;

  const view = async (
    req: Request,
    res: Response,
    viewer: Viewer,
    status = 200,
    flash: { notice?: string; alert?: string } = {},
  ) => {
    const { locale, messages } = stateOf(res);
    const found = await membersOf(ports, viewer);
    if (found.kind === 'forbidden') return forbidden(res);
    const account = await ports.platform.call('getAccount', { id: viewer.accountId });
    sendHtml(
      res,
      status,
      membersPage({
        locale,
        messages,
        csrfToken: csrfToken(req, res),
        account,
        members: found.members,
        invitations: found.invitations,
        ...flash,
      }),
    );
  };

  router.get(
    '/members',
    page(
      signedIn(async (req, res, viewer) => {
        const { messages } = stateOf(res);
        const notice = req.query.removed ? messages.members.removed : undefined;
        await view(req, res, viewer, 200, notice ? { notice } : {});
      }),
    ),
  );
  router.post(
    '/members/invite',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { locale, messages, address } = stateOf(res);
        if (!can(viewer.role, 'members.manage')) return forbidden(res);
        const fields = formFields(req.body);
        const { input, errors } = parseSignIn({ email: fields.email ?? '', password: 'x' });
        const role = roleOf(fields.role);
        if (errors.email || !role)
          return view(req, res, viewer, 422, {
            alert: `${messages.email}: ${messages.fieldProblems[errors.email ?? 'required']}`,
          });
        const result = await invite(ports, viewer, { email: input.email, role }, address, locale);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'already_member') return view(req, res, viewer, 409, { alert: messages.members.alreadyMember });
        if (result.kind === 'throttled') return view(req, res, viewer, 429, { alert: messages.tooManyAttempts(600) });
        await view(req, res, viewer, 200, { notice: messages.members.invited(input.email) });
      }),
    ),
  );
  router.post(
    '/members/:userId/role',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { messages, address } = stateOf(res);
        const role = roleOf(formFields(req.body).role);
        if (!can(viewer.role, 'members.manage')) return forbidden(res);
        if (!role) return view(req, res, viewer, 422, { alert: messages.members.roleInvalid });
        const result = await changeRole(ports, viewer, String(req.params.userId), role, address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return tools.notFound(res);
        if (result.kind === 'last_owner') return view(req, res, viewer, 409, { alert: messages.members.lastOwner });
        // An owner who made themselves a developer or a viewer no longer manages the team: home, not a 403.
        if (result.kind === 'changed' && String(req.params.userId) === viewer.userId && role !== 'owner')
          return redirect(res, '/home');
        await view(req, res, viewer, 200, {
          notice:
            result.kind === 'changed' ? messages.members.roleChanged(result.email, messages.members.roles[role]) : undefined,
        });
      }),
    ),
  );
  router.post(
    '/members/:userId/remove',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { messages, address } = stateOf(res);
        const result = await removeMember(ports, viewer, String(req.params.userId), address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return tools.notFound(res);
        if (result.kind === 'last_owner') return view(req, res, viewer, 409, { alert: messages.members.lastOwner });
        redirect(
          res,
          result.kind === 'removed' && (await membersOf(ports, viewer)).kind === 'members' ? '/members?removed=1' : '/sign-in',
        );
      }),
    ),
  );

  const invalidLink = (res: Response) => {
    const { locale, messages } = stateOf(res);
    sendHtml(res, 410, messagePage({ locale, messages, title: messages.linkInvalidTitle, body: messages.linkInvalidBody }));
  };
  type Invitation = NonNullable<Awaited<ReturnType<typeof invitationOf>>>;
  /** What both invitation pages show of it: the account's name, the address, the role, the link's token. */
  const invitationView = async (req: Request, res: Response, invitation: Invitation, token: string) => {
    const { locale, messages } = stateOf(res);
    const account = await ports.platform.call('getAccount', { id: invitation.accountId });
    const { email, role } = invitation;
    return { locale, messages, csrfToken: csrfToken(req, res), accountName: account.name, email, role, token };
  };
  router.get(
    '/invitations/accept',
    page(async (req, res) => {
      const invitation = await invitationOf(ports, req.query.token);
      if (!invitation) return invalidLink(res);
      const view = await invitationView(req, res, invitation, req.query.token as string);
      // An address that has a user joins with it: signed in as that user, one button; otherwise, how to.
      const existing = await findUserByEmail(ports.pool, invitation.email);
      if (!existing) return sendHtml(res, 200, acceptInvitationPage(view));
      const { viewer } = stateOf(res);
      const signedInAs = viewer && !viewer.secondFactorPending ? (viewer.userId === existing.id ? 'invited' : 'other') : 'nobody';
      sendHtml(res, 200, joinInvitationPage({ ...view, signedInAs }));
    }),
  );
  router.post(
    '/invitations/accept',
    ...post(async (req, res) => {
      const { address } = stateOf(res);
      const fields = formFields(req.body);
      const result = await acceptInvitationWith(
        ports,
        fields.token,
        { name: fields.name ?? '', password: fields.password ?? '' },
        address,
      );
      if (result.kind === 'invalid_link') return invalidLink(res);
      if (result.kind === 'invalid') {
        const invitation = await invitationOf(ports, fields.token);
        if (!invitation) return invalidLink(res);
        const view = await invitationView(req, res, invitation, fields.token ?? '');
        return sendHtml(res, 422, acceptInvitationPage({ ...view, errors: result.errors }));
      }
      cookies.set(res, cookies.signIn, result.cookieValue);
      cookies.clear(res, cookies.visitor);
      redirect(res, '/home');
    }),
  );
  router.post(
    '/invitations/join',
    ...post(
      signedIn(async (req, res, viewer) => {
        const result = await joinWithInvitation(ports, viewer, formFields(req.body).token, stateOf(res).address);
        if (result.kind === 'invalid_link') return invalidLink(res);
        cookies.set(res, cookies.signIn, result.cookieValue);
        redirect(res, '/home');
      }),
    ),
  );
}
