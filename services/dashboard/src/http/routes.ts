import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ClientAddresses, Logger } from '@idv/kit';
import { doubleCsrf } from 'csrf-csrf';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { formFields, formList, parseSignIn, parseSignUp } from '../domain/forms';
import { can } from '../domain/roles';
import { MESSAGES, localeOf } from '../domain/i18n';
import { newSecret } from '../domain/secrets';
import { confirmEmail, confirmationLinkLive, homeOf, resendConfirmation, signUp } from '../use-cases/accounts';
import { createKey, keyOf, listKeys, parseNewKey, revokeKey, rollKey } from '../use-cases/keys';
import type { DashboardPorts } from '../use-cases/ports';
import { operatorOf } from '../use-cases/operators';
import { signIn, signOut, signOutEverywhere, viewerOf, type Viewer } from '../use-cases/sign-in';
import { mountOperatorPages } from './operator-routes';
import { mountAuditPages } from './audit-routes';
import { mountBalancePages } from './balance-routes';
import { mountWebhookPages } from './webhook-routes';
import { mountSessionPages } from './session-routes';
import { mountSessionImagePages } from './session-image-routes';
import { mountUsagePages } from './usage-routes';
import { mountMemberPages } from './member-routes';
import { mountOrganisationPages } from './organisation-routes';
import { mountTwoFactorPages } from './two-factor-routes';
import { mountProjectPages } from './project-routes';
import { stateOf, type PageState, type PageTools } from './page-tools';
import { redirect, sendHtml } from './respond';
import { Cookies, cookiesOf, parseCookies, securityHeaders } from './security';
import { keyCreatedPage, keysPage, revokeKeyPage } from './views/keys';
import { EDITOR_SCRIPT_PATH } from './views/flow-editor';
import { COPY_SCRIPT_PATH, STYLESHEET_PATH, timeOf } from './views/layout';
import {
  confirmEmailPage,
  forgotPage,
  homePage,
  messagePage,
  resetPasswordPage,
  signInLinkPage,
  signInPage,
  signUpPage,
} from './views/pages';
import { linkLive, resetPassword, sendAccessLinks, signInWithLink } from '../use-cases/access-links';

export interface DashboardHttpOptions {
  secureCookies: boolean;
  /** The CSRF tokens' HMAC key. */
  secret: string;
  clientAddresses: ClientAddresses;
}

/** A form's body: URL-encoded, small (the largest form is a flow's JSON, added with the editor). */
const FORM_BODY_LIMIT = '64kb';

/** The dashboard's pages. Every change is a POST with a CSRF token bound to the browser's sign-in (or visit). */
export function dashboardRouter(ports: DashboardPorts, options: DashboardHttpOptions, logger: Logger): express.Router {
  const router = express.Router();
  const cookies = new Cookies(options.secureCookies);
  const asset = (file: string) => readFileSync(path.join(__dirname, '..', '..', 'assets', file));
  // Bundled by the build (build-client.mjs) into dist/assets, the same file whether this runs from src or dist.
  const builtAsset = (file: string) => readFileSync(path.join(__dirname, '..', '..', 'dist', 'assets', file));
  const stylesheet = asset('dashboard.css');
  const copyScript = asset('copy.js');
  const editorScript = builtAsset('editor.js');

  const csrf = doubleCsrf({
    getSecret: () => options.secret,
    // Bound to the sign-in when there is one, else to the visit: a token from before a sign-in is not
    // one after it, and a visit without its cookie has no valid token at all.
    getSessionIdentifier: (req) =>
      (req.res?.locals.page as PageState | undefined)?.operator?.signInHash ??
      (req.res?.locals.page as PageState | undefined)?.viewer?.signInHash ??
      cookiesOf(req)[cookies.visitor] ??
      '',
    cookieName: cookies.csrf,
    cookieOptions: { sameSite: 'lax', path: '/', secure: options.secureCookies, httpOnly: true },
    getCsrfTokenFromRequest: (req) => (req.body as Record<string, unknown> | undefined)?._csrf as string | undefined,
  });

  /** A CSRF token for a page's forms; an anonymous browser first gets its visit cookie. */
  const csrfToken = (req: Request, res: Response): string => {
    const page = stateOf(res);
    if (!page.viewer && !page.operator && !cookiesOf(req)[cookies.visitor]) {
      const visit = newSecret();
      cookies.set(res, cookies.visitor, visit);
      (req as { cookies?: Record<string, string> }).cookies = { ...cookiesOf(req), [cookies.visitor]: visit };
    }
    return csrf.generateCsrfToken(req, res);
  };

  router.get(STYLESHEET_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/css; charset=utf-8').send(stylesheet);
  });
  router.get(COPY_SCRIPT_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/javascript; charset=utf-8').send(copyScript);
  });
  router.get(EDITOR_SCRIPT_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/javascript; charset=utf-8').send(editorScript);
  });

  router.use(securityHeaders, parseCookies, (async (req, res, next) => {
    const locale = localeOf(req.headers['accept-language']);
    const onConsole = req.path === '/operator' || req.path.startsWith('/operator/');
    const [viewer, operator] = await Promise.all([
      onConsole ? null : viewerOf(ports, cookiesOf(req)[cookies.signIn]),
      onConsole ? operatorOf(ports, cookiesOf(req)[cookies.operator]) : null,
    ]);
    res.locals.page = {
      locale,
      messages: MESSAGES[locale],
      address: options.clientAddresses.of(req),
      viewer,
      operator,
    } satisfies PageState;
    next();
  }) as RequestHandler);

  // The flow editor's form names each input of each step: a flow of 20 steps with their fields stays well under this.
  const forms = express.urlencoded({ extended: false, limit: FORM_BODY_LIMIT, parameterLimit: 3000 });
  /** A POST: its body read, then its CSRF token checked before anything else happens. */
  const post = (handler: (req: Request, res: Response) => Promise<void>): RequestHandler[] => [
    forms,
    (req, res, next) => {
      if (!csrf.validateRequest(req)) {
        const { messages: m, locale } = stateOf(res);
        sendHtml(res, 403, messagePage({ locale, messages: m, title: m.formExpiredTitle, body: m.formExpiredBody }));
        return;
      }
      handler(req, res).catch(next);
    },
  ];
  const page =
    (handler: (req: Request, res: Response) => Promise<void> | void): RequestHandler =>
    (req, res, next) => {
      Promise.resolve(handler(req, res)).catch(next);
    };
  /** A sign-in that may still owe its TOTP code or enrolment (only the two-factor pages and sign-out take it). */
  const partly =
    (handler: (req: Request, res: Response, viewer: Viewer) => Promise<void>) => async (req: Request, res: Response) => {
      const viewer = stateOf(res).viewer;
      if (!viewer) return redirect(res, '/sign-in');
      await handler(req, res, viewer);
    };
  /** A whole sign-in: the code given, and TOTP enrolled when the account requires it. */
  const signedIn =
    (handler: (req: Request, res: Response, viewer: Viewer) => Promise<void>) => async (req: Request, res: Response) => {
      const viewer = stateOf(res).viewer;
      if (!viewer) return redirect(res, '/sign-in');
      if (viewer.secondFactorPending) return redirect(res, '/two-factor');
      if (viewer.mustEnrolTotp) return redirect(res, '/security/setup');
      await handler(req, res, viewer);
    };

  const tools: PageTools = { cookies, csrfToken, post, page, forbidden, notFound };
  mountOperatorPages(router, ports, tools);

  mountProjectPages(router, ports, tools, signedIn);
  mountMemberPages(router, ports, tools, signedIn);
  mountOrganisationPages(router, ports, tools, signedIn);
  mountAuditPages(router, ports, tools, signedIn);
  mountBalancePages(router, ports, tools, signedIn);
  mountWebhookPages(router, ports, tools, signedIn);
  mountSessionPages(router, ports, tools, signedIn);
  mountSessionImagePages(router, ports, tools, signedIn);
  mountUsagePages(router, ports, tools, signedIn);
  mountTwoFactorPages(router, ports, tools, { signedIn, partly });

  router.get(
    '/',
    page((_req, res) => redirect(res, stateOf(res).viewer ? '/home' : '/sign-in')),
  );

  router.get(
    '/sign-up',
    page((req, res) => {
      const { locale, messages } = stateOf(res);
      sendHtml(res, 200, signUpPage({ locale, messages, csrfToken: csrfToken(req, res) }));
    }),
  );
  router.post(
    '/sign-up',
    ...post(async (req, res) => {
      const { locale, messages, address } = stateOf(res);
      const { input, errors } = parseSignUp(formFields(req.body), ports.commonPasswords);
      const again = (status: number, view: { errors?: typeof errors; alert?: string }) =>
        sendHtml(res, status, signUpPage({ locale, messages, csrfToken: csrfToken(req, res), input, ...view }));
      if (Object.keys(errors).length) return again(422, { errors });
      const result = await signUp(ports, input, address, locale);
      if (result.kind === 'throttled') return again(429, { alert: messages.tooManyAttempts(result.retryAfterSeconds) });
      if (result.kind === 'invalid') return again(422, { errors: result.errors });
      sendHtml(
        res,
        200,
        messagePage({ locale, messages, title: messages.checkMailTitle, body: messages.checkMailBody(input.email) }),
      );
    }),
  );

  router.get(
    '/confirm-email',
    page(async (req, res) => {
      const { locale, messages } = stateOf(res);
      const token = req.query.token;
      // Opening the link uses nothing (mail scanners fetch links): the button's POST does.
      if (!(await confirmationLinkLive(ports, token))) return linkInvalid(res);
      sendHtml(res, 200, confirmEmailPage({ locale, messages, csrfToken: csrfToken(req, res), token: token as string }));
    }),
  );
  router.post(
    '/confirm-email',
    ...post(async (req, res) => {
      const { locale, messages, address, viewer } = stateOf(res);
      if (!(await confirmEmail(ports, formFields(req.body).token, address))) return linkInvalid(res);
      const action = viewer ? { href: '/home', label: messages.homeTitle } : { href: '/sign-in', label: messages.signIn };
      sendHtml(res, 200, messagePage({ locale, messages, title: messages.confirmedTitle, body: messages.confirmedBody, action }));
    }),
  );
  router.post(
    '/confirm-email/resend',
    ...post(
      signedIn(async (_req, res, viewer) => {
        const { locale, address } = stateOf(res);
        const sent = await resendConfirmation(ports, viewer.userId, address, locale);
        redirect(res, sent === 'sent' ? '/home?notice=confirmation_resent' : '/home');
      }),
    ),
  );

  router.get(
    '/sign-in',
    page((req, res) => {
      const { locale, messages, viewer } = stateOf(res);
      if (viewer) return redirect(res, '/home');
      const notice =
        req.query.notice === 'signed_out_everywhere'
          ? messages.signedOutEverywhere
          : req.query.notice === 'password_changed'
            ? messages.passwordChanged
            : undefined;
      sendHtml(res, 200, signInPage({ locale, messages, csrfToken: csrfToken(req, res), ...(notice ? { notice } : {}) }));
    }),
  );
  router.post(
    '/sign-in',
    ...post(async (req, res) => {
      const { locale, messages, address, viewer } = stateOf(res);
      const { input, errors } = parseSignIn(formFields(req.body));
      const again = (status: number, view: { errors?: typeof errors; alert?: string }) =>
        sendHtml(res, status, signInPage({ locale, messages, csrfToken: csrfToken(req, res), input, ...view }));
      if (Object.keys(errors).length) return again(422, { errors });
      const result = await signIn(ports, input, address);
      if (result.kind === 'throttled') return again(429, { alert: messages.tooManyAttempts(result.retryAfterSeconds) });
      if (result.kind === 'wrong_credentials') return again(401, { alert: messages.wrongCredentials });
      // A browser signed in as someone else is signed out of that first: one sign-in per cookie.
      if (viewer) await signOut(ports, viewer, address);
      cookies.set(res, cookies.signIn, result.cookieValue);
      cookies.clear(res, cookies.visitor);
      redirect(res, result.secondFactorPending ? '/two-factor' : '/home');
    }),
  );
  router.get(
    '/forgot',
    page((req, res) => {
      const { locale, messages } = stateOf(res);
      sendHtml(res, 200, forgotPage({ locale, messages, csrfToken: csrfToken(req, res) }));
    }),
  );
  router.post(
    '/forgot',
    ...post(async (req, res) => {
      const { locale, messages, address } = stateOf(res);
      const { input, errors } = parseSignIn({ ...formFields(req.body), password: 'x' });
      if (errors.email)
        return sendHtml(res, 422, forgotPage({ locale, messages, csrfToken: csrfToken(req, res), errors, email: input.email }));
      const sent = await sendAccessLinks(ports, input.email, address, locale);
      if (sent === 'throttled') {
        return sendHtml(
          res,
          429,
          forgotPage({ locale, messages, csrfToken: csrfToken(req, res), alert: messages.tooManyAttempts(60) }),
        );
      }
      sendHtml(res, 200, forgotPage({ locale, messages, csrfToken: csrfToken(req, res), notice: messages.linksSent }));
    }),
  );
  router.get(
    '/sign-in-link',
    page(async (req, res) => {
      const { locale, messages } = stateOf(res);
      if (!(await linkLive(ports, req.query.token, 'sign_in'))) return linkInvalid(res);
      sendHtml(res, 200, signInLinkPage({ locale, messages, csrfToken: csrfToken(req, res), token: req.query.token as string }));
    }),
  );
  router.post(
    '/sign-in-link',
    ...post(async (req, res) => {
      const { address, viewer } = stateOf(res);
      const signedIn = await signInWithLink(ports, formFields(req.body).token, address);
      if (!signedIn) return linkInvalid(res);
      if (viewer) await signOut(ports, viewer, address);
      cookies.set(res, cookies.signIn, signedIn.cookieValue);
      cookies.clear(res, cookies.visitor);
      redirect(res, signedIn.secondFactorPending ? '/two-factor' : '/home');
    }),
  );
  router.get(
    '/reset-password',
    page(async (req, res) => {
      const { locale, messages } = stateOf(res);
      if (!(await linkLive(ports, req.query.token, 'reset_password'))) return linkInvalid(res);
      sendHtml(
        res,
        200,
        resetPasswordPage({ locale, messages, csrfToken: csrfToken(req, res), token: req.query.token as string }),
      );
    }),
  );
  router.post(
    '/reset-password',
    ...post(async (req, res) => {
      const { locale, messages, address } = stateOf(res);
      const fields = formFields(req.body);
      const result = await resetPassword(ports, fields.token, fields.password ?? '', address);
      if (result.kind === 'invalid_link') return linkInvalid(res);
      if (result.kind === 'weak_password') {
        return sendHtml(
          res,
          422,
          resetPasswordPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            token: fields.token ?? '',
            errors: { password: result.problem },
          }),
        );
      }
      cookies.clear(res, cookies.signIn);
      redirect(res, '/sign-in?notice=password_changed');
    }),
  );

  router.post(
    '/sign-out',
    ...post(
      partly(async (_req, res, viewer) => {
        await signOut(ports, viewer, stateOf(res).address);
        cookies.clear(res, cookies.signIn);
        redirect(res, '/sign-in');
      }),
    ),
  );
  router.post(
    '/sign-out-everywhere',
    ...post(
      signedIn(async (_req, res, viewer) => {
        await signOutEverywhere(ports, viewer, stateOf(res).address);
        cookies.clear(res, cookies.signIn);
        redirect(res, '/sign-in?notice=signed_out_everywhere');
      }),
    ),
  );

  router.get(
    '/home',
    page(
      signedIn(async (req, res, viewer) => {
        const { locale, messages } = stateOf(res);
        const { account, emailConfirmed, checklist } = await homeOf(ports, viewer);
        const notice = req.query.notice === 'confirmation_resent' ? messages.confirmationResent : undefined;
        sendHtml(
          res,
          200,
          homePage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            account,
            emailConfirmed,
            checklist,
            team: can(viewer.role, 'members.manage'),
            ...(notice ? { notice } : {}),
          }),
        );
      }),
    ),
  );

  /** The keys pages: every action checked against the viewer's role here, whatever the page showed. */
  const keysView = async (
    req: Request,
    res: Response,
    viewer: Viewer,
    extra: Partial<Parameters<typeof keysPage>[0]> = {},
    status = 200,
  ) => {
    const { locale, messages } = stateOf(res);
    const listed = await listKeys(ports, viewer);
    if (listed.kind !== 'keys') return forbidden(res);
    const account = await ports.platform.call('getAccount', { id: viewer.accountId });
    sendHtml(
      res,
      status,
      keysPage({
        locale,
        messages,
        csrfToken: csrfToken(req, res),
        account,
        keys: listed.keys,
        canWrite: can(viewer.role, 'keys.write'),
        nonce: newSecret(),
        ...extra,
      }),
    );
  };
  router.get(
    '/keys',
    page(
      signedIn(async (req, res, viewer) => {
        const revoked = typeof req.query.revoked === 'string' ? req.query.revoked : undefined;
        const notice = revoked ? stateOf(res).messages.keys.revoked(revoked) : undefined;
        await keysView(req, res, viewer, notice ? { notice } : {});
      }),
    ),
  );
  router.post(
    '/keys',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { locale, messages, address } = stateOf(res);
        const { input, errors } = parseNewKey(formFields(req.body), formList(req.body, 'scopes'));
        if (!can(viewer.role, 'keys.write')) return forbidden(res);
        if (Object.keys(errors).length) return keysView(req, res, viewer, { errors, input }, 422);
        const result = await createKey(ports, viewer, input, address);
        switch (result.kind) {
          case 'forbidden':
          case 'not_found':
            return forbidden(res);
          case 'live_needs_active_account':
            return keysView(req, res, viewer, { alert: messages.keys.liveNeedsActive, input }, 422);
          case 'duplicate':
            return keysView(req, res, viewer, { alert: messages.keys.duplicate }, 409);
          case 'created': {
            const account = await ports.platform.call('getAccount', { id: viewer.accountId });
            sendHtml(res, 201, keyCreatedPage({ locale, messages, csrfToken: csrfToken(req, res), account, key: result.key }));
          }
        }
      }),
    ),
  );
  router.get(
    '/keys/:id/revoke',
    page(
      signedIn(async (req, res, viewer) => {
        const { locale, messages } = stateOf(res);
        if (!can(viewer.role, 'keys.write')) return forbidden(res);
        const found = await keyOf(ports, viewer, String(req.params.id));
        if (found.kind === 'forbidden') return forbidden(res);
        if (found.kind !== 'key' || found.key.revoked_at) return notFound(res);
        const account = await ports.platform.call('getAccount', { id: viewer.accountId });
        sendHtml(res, 200, revokeKeyPage({ locale, messages, csrfToken: csrfToken(req, res), account, key: found.key }));
      }),
    ),
  );
  router.post(
    '/keys/:id/revoke',
    ...post(
      signedIn(async (req, res, viewer) => {
        const result = await revokeKey(ports, viewer, String(req.params.id), stateOf(res).address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return notFound(res);
        redirect(res, `/keys?revoked=${encodeURIComponent(result.key.name)}`);
      }),
    ),
  );

  router.post(
    '/keys/:id/roll',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { locale, messages, address } = stateOf(res);
        const delay = ({ '0': 0, '3600': 3600, '86400': 86_400, '604800': 604_800 } as const)[formFields(req.body).delay ?? ''];
        if (delay === undefined)
          return keysView(req, res, viewer, { alert: `${messages.keys.rollDelay}: ${messages.fieldProblems.required}` }, 422);
        const result = await rollKey(ports, viewer, String(req.params.id), delay, address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return notFound(res);
        if (result.kind === 'conflict') return keysView(req, res, viewer, { alert: messages.keys.rollConflict }, 409);
        const account = await ports.platform.call('getAccount', { id: viewer.accountId });
        const revokesAt = result.rolled.revokes_at;
        const when = revokesAt ? timeOf(locale, revokesAt) : null;
        sendHtml(
          res,
          201,
          keyCreatedPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            account,
            key: result.replacement,
            notice: when ? messages.keys.rolledLater(when) : messages.keys.rolledNow,
          }),
        );
      }),
    ),
  );

  function forbidden(res: Response): void {
    const { locale, messages } = stateOf(res);
    sendHtml(
      res,
      403,
      messagePage({
        locale,
        messages,
        title: messages.forbiddenTitle,
        body: messages.forbiddenBody,
        action: { href: '/home', label: messages.homeTitle },
      }),
    );
  }

  function notFound(res: Response): void {
    const { locale, messages } = stateOf(res);
    sendHtml(
      res,
      404,
      messagePage({
        locale,
        messages,
        title: messages.notFoundTitle,
        body: messages.notFoundBody,
        action: { href: '/', label: messages.homeTitle },
      }),
    );
  }

  function linkInvalid(res: Response): void {
    const { locale, messages } = stateOf(res);
    sendHtml(
      res,
      410,
      messagePage({
        locale,
        messages,
        title: messages.linkInvalidTitle,
        body: messages.linkInvalidBody,
        action: { href: '/sign-in', label: messages.signIn },
      }),
    );
  }

  router.use((_req, res) => notFound(res));
  router.use(pageErrors(logger));
  return router;
}

/** What a page answers when something fails: a kind page, never a stack trace (a form too large is the sender's). */
function pageErrors(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const state = res.locals.page as PageState | undefined;
    const messages = state?.messages ?? MESSAGES.es;
    const locale = state?.locale ?? 'es';
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large' || type === 'parameters.too.many') {
      sendHtml(res, 413, messagePage({ locale, messages, title: messages.formTooLargeTitle, body: messages.formTooLargeBody }));
      return;
    }
    if (
      type === 'request.aborted' ||
      type === 'entity.parse.failed' ||
      type === 'encoding.unsupported' ||
      type === 'charset.unsupported'
    ) {
      sendHtml(res, 400, messagePage({ locale, messages, title: messages.formExpiredTitle, body: messages.formExpiredBody }));
      return;
    }
    logger.error({ err: error, request_id: res.locals.requestId as string | undefined }, 'dashboard page failed');
    sendHtml(res, 503, messagePage({ locale, messages, title: messages.unavailableTitle, body: messages.unavailableBody }));
  };
}
