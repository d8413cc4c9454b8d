import type express from 'express';
import type { Request, Response } from 'express';
import { findUser, requiresTotp } from '../adapters/users.repository';
import { formFields } from '../domain/forms';
import { can } from '../domain/roles';
import type { DashboardPorts } from '../use-cases/ports';
import type { Viewer } from '../use-cases/sign-in';
import { giveUserSecondFactor, requireTwoFactor, userEnrolment } from '../use-cases/two-factor';
import { redirect, sendHtml } from './respond';
import { stateOf, type PageTools, type SignedInRoute } from './page-tools';
import { recoveryCodesShownOnce, securityPage, twoFactorPage } from './views/pages';
import { qrSvg } from './qr';

/**
 * TOTP for the integrators' users: the sign-in's second step (`/two-factor`), the enrolment
 * (`/security/setup`), and the owner's setting that requires it of every member (`/security/require`).
 * `partly` lets in a sign-in that still owes its code or its enrolment: only these pages do.
 */
export function mountTwoFactorPages(
  router: express.Router,
  ports: DashboardPorts,
  tools: PageTools,
  handlers: {
    signedIn: SignedInRoute;
    partly: (
      handler: (req: Request, res: Response, viewer: Viewer) => Promise<void>,
    ) => (req: Request, res: Response) => Promise<void>;
  },
): void {
  const { cookies, csrfToken, post, page, forbidden } = tools;
  const { signedIn, partly } = handlers;

  const accepted = (res: Response, result: Awaited<ReturnType<typeof giveUserSecondFactor>>, req: Request) => {
    if (result.kind !== 'accepted') return false;
    const { locale, messages } = stateOf(res);
    cookies.set(res, cookies.signIn, result.cookieValue);
    if (result.recoveryCodes)
      sendHtml(
        res,
        200,
        recoveryCodesShownOnce({ locale, messages, csrfToken: csrfToken(req, res), codes: result.recoveryCodes, next: '/home' }),
      );
    else redirect(res, '/home');
    return true;
  };

  router.get(
    '/two-factor',
    page(
      partly((req, res, viewer) => {
        const { locale, messages } = stateOf(res);
        if (!viewer.secondFactorPending) return Promise.resolve(redirect(res, '/home'));
        const o = messages.operator;
        sendHtml(
          res,
          200,
          twoFactorPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            title: o.verifyTitle,
            body: o.verifyBody,
            action: '/two-factor',
          }),
        );
        return Promise.resolve();
      }),
    ),
  );
  router.post(
    '/two-factor',
    ...post(
      partly(async (req, res, viewer) => {
        const { locale, messages, address } = stateOf(res);
        if (!viewer.secondFactorPending) return redirect(res, '/home');
        const result = await giveUserSecondFactor(ports, viewer, formFields(req.body).code ?? '', address);
        if (accepted(res, result, req)) return;
        const o = messages.operator;
        sendHtml(
          res,
          401,
          twoFactorPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            title: o.verifyTitle,
            body: o.verifyBody,
            action: '/two-factor',
            alert: o.wrongCode,
          }),
        );
      }),
    ),
  );

  const setupView = async (req: Request, res: Response, viewer: Viewer, status = 200, alert?: string) => {
    const { locale, messages } = stateOf(res);
    const enrolment = await userEnrolment(ports, viewer);
    if (!enrolment) return redirect(res, '/security');
    const qr = await qrSvg(enrolment.uri);
    const o = messages.operator;
    sendHtml(
      res,
      status,
      twoFactorPage({
        locale,
        messages,
        csrfToken: csrfToken(req, res),
        title: o.enrolTitle,
        body: o.enrolBody,
        action: '/security/setup',
        qrSvg: qr,
        secret: enrolment.secret,
        ...(viewer.mustEnrolTotp ? { notice: messages.security.requiredByOwner } : {}),
        ...(alert ? { alert } : {}),
      }),
    );
  };
  router.get(
    '/security/setup',
    page(
      partly((req, res, viewer) =>
        viewer.secondFactorPending ? Promise.resolve(redirect(res, '/two-factor')) : setupView(req, res, viewer),
      ),
    ),
  );
  router.post(
    '/security/setup',
    ...post(
      partly(async (req, res, viewer) => {
        const { messages, address } = stateOf(res);
        if (viewer.secondFactorPending) return redirect(res, '/two-factor');
        const result = await giveUserSecondFactor(ports, viewer, formFields(req.body).code ?? '', address);
        if (accepted(res, result, req)) return;
        await setupView(req, res, viewer, 401, messages.operator.wrongCode);
      }),
    ),
  );

  router.get(
    '/security',
    page(
      signedIn(async (req, res, viewer) => {
        const { locale, messages } = stateOf(res);
        const [account, user, required] = await Promise.all([
          ports.platform.call('getAccount', { id: viewer.accountId }),
          findUser(ports.pool, viewer.userId),
          requiresTotp(ports.pool, viewer.accountId),
        ]);
        const notice = req.query.saved ? messages.security.saved : undefined;
        sendHtml(
          res,
          200,
          securityPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            account,
            enrolled: !!user?.totpEnrolledAt,
            isOwner: can(viewer.role, 'account.settings'),
            required,
            ...(notice ? { notice } : {}),
          }),
        );
      }),
    ),
  );
  router.post(
    '/security/require',
    ...post(
      signedIn(async (req, res, viewer) => {
        const result = await requireTwoFactor(ports, viewer, formFields(req.body).required === 'on', stateOf(res).address);
        if (result.kind === 'forbidden') return forbidden(res);
        redirect(res, '/security?saved=1');
      }),
    ),
  );
}
