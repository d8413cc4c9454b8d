import { isId, type AccountId, type AccountStatus } from '@idv/contracts';
import { InternalCallError } from '@idv/contracts';
import type express from 'express';
import type { Request, Response } from 'express';
import { formFields, parseSignIn } from '../domain/forms';
import { newSecret } from '../domain/secrets';
import {
  accountDetail,
  accountsFor,
  creditTokens,
  decideAccount,
  enrolmentOf,
  giveSecondFactor,
  operatorPassword,
  operatorSignOut,
  type OperatorViewer,
} from '../use-cases/operators';
import type { DashboardPorts } from '../use-cases/ports';
import { redirect, sendHtml } from './respond';
import { stateOf, type PageTools } from './page-tools';
import { recoveryCodesShownOnce, signInPage, twoFactorPage } from './views/pages';
import { accountDetailPage, accountsListPage } from './views/operator';
import { qrSvg } from './qr';

const STATUSES: readonly AccountStatus[] = ['pending', 'active', 'suspended'];

/** An operator's words: up to 500 characters, line breaks allowed, no other control characters. */
function reasonOf(value: string | undefined): string | null {
  const reason = (value ?? '').trim();
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (!reason || [...reason].length > 500 || /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(reason)) return null;
  return reason;
}

/**
 * The operator console (`/operator`): its own sign-in, never past the password without the TOTP code
 * (enrolled at the first sign-in), then the accounts waiting for approval, one account's details, and
 * the decisions and credits, each with a reason.
 */
export function mountOperatorPages(router: express.Router, ports: DashboardPorts, tools: PageTools): void {
  const { cookies, csrfToken, post, page } = tools;

  /** The console's pages need both factors; a password alone leads to the code (or its enrolment). */
  const consolePage =
    (handler: (req: Request, res: Response, operator: OperatorViewer) => Promise<void>) =>
    async (req: Request, res: Response) => {
      const operator = stateOf(res).operator;
      if (!operator) return redirect(res, '/operator/sign-in');
      if (!operator.secondFactor) return redirect(res, operator.enrolled ? '/operator/verify' : '/operator/enroll');
      await handler(req, res, operator);
    };
  const halfway =
    (handler: (req: Request, res: Response, operator: OperatorViewer) => Promise<void> | void) =>
    async (req: Request, res: Response) => {
      const operator = stateOf(res).operator;
      if (!operator) return redirect(res, '/operator/sign-in');
      if (operator.secondFactor) return redirect(res, '/operator');
      await handler(req, res, operator);
    };

  router.get(
    '/operator/sign-in',
    page((req, res) => {
      const { locale, messages, operator } = stateOf(res);
      if (operator?.secondFactor) return redirect(res, '/operator');
      sendHtml(
        res,
        200,
        signInPage({
          locale,
          messages,
          csrfToken: csrfToken(req, res),
          action: '/operator/sign-in',
          title: messages.operator.signInTitle,
        }),
      );
    }),
  );
  router.post(
    '/operator/sign-in',
    ...post(async (req, res) => {
      const { locale, messages, address, operator } = stateOf(res);
      const { input, errors } = parseSignIn(formFields(req.body));
      const again = (status: number, view: { errors?: typeof errors; alert?: string }) =>
        sendHtml(
          res,
          status,
          signInPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            input,
            action: '/operator/sign-in',
            title: messages.operator.signInTitle,
            ...view,
          }),
        );
      if (Object.keys(errors).length) return again(422, { errors });
      const result = await operatorPassword(ports, input, address);
      if (result.kind === 'throttled') return again(429, { alert: messages.tooManyAttempts(result.retryAfterSeconds) });
      if (result.kind === 'wrong_credentials') return again(401, { alert: messages.wrongCredentials });
      if (operator) await operatorSignOut(ports, operator);
      cookies.set(res, cookies.operator, result.cookieValue);
      redirect(res, result.enrolled ? '/operator/verify' : '/operator/enroll');
    }),
  );

  router.get(
    '/operator/enroll',
    page(
      halfway(async (req, res, operator) => {
        const { locale, messages } = stateOf(res);
        if (operator.enrolled) return redirect(res, '/operator/verify');
        const { secret, uri } = await enrolmentOf(ports, operator);
        const qr = await qrSvg(uri);
        const alert = req.query.wrong ? messages.operator.wrongCode : undefined;
        sendHtml(
          res,
          alert ? 401 : 200,
          twoFactorPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            title: messages.operator.enrolTitle,
            body: messages.operator.enrolBody,
            action: '/operator/enroll',
            qrSvg: qr,
            secret,
            ...(alert ? { alert } : {}),
          }),
        );
      }),
    ),
  );

  const secondFactor = (from: 'enroll' | 'verify') =>
    post(
      halfway(async (req, res, operator) => {
        const { locale, messages, address } = stateOf(res);
        const result = await giveSecondFactor(ports, operator, formFields(req.body).code ?? '', address);
        if (result.kind === 'wrong_code') {
          if (from === 'enroll') return redirect(res, '/operator/enroll?wrong=1');
          return sendHtml(
            res,
            401,
            twoFactorPage({
              locale,
              messages,
              csrfToken: csrfToken(req, res),
              title: messages.operator.verifyTitle,
              body: messages.operator.verifyBody,
              action: '/operator/verify',
              alert: messages.operator.wrongCode,
            }),
          );
        }
        // A new cookie with the privilege (no fixation); its CSRF tokens are bound to it from the next page.
        cookies.set(res, cookies.operator, result.cookieValue);
        if (result.recoveryCodes) {
          return sendHtml(
            res,
            200,
            recoveryCodesShownOnce({ locale, messages, csrfToken: '', codes: result.recoveryCodes, next: '/operator' }),
          );
        }
        redirect(res, '/operator');
      }),
    );
  router.post('/operator/enroll', ...secondFactor('enroll'));
  router.get(
    '/operator/verify',
    page(
      halfway((req, res, operator) => {
        const { locale, messages } = stateOf(res);
        if (!operator.enrolled) return redirect(res, '/operator/enroll');
        sendHtml(
          res,
          200,
          twoFactorPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            title: messages.operator.verifyTitle,
            body: messages.operator.verifyBody,
            action: '/operator/verify',
          }),
        );
      }),
    ),
  );
  router.post('/operator/verify', ...secondFactor('verify'));

  router.post(
    '/operator/sign-out',
    ...post(async (_req, res) => {
      const operator = stateOf(res).operator;
      if (operator) await operatorSignOut(ports, operator);
      cookies.clear(res, cookies.operator);
      redirect(res, '/operator/sign-in');
    }),
  );

  router.get(
    '/operator',
    page(
      consolePage(async (req, res, operator) => {
        const { locale, messages } = stateOf(res);
        const status = STATUSES.find((candidate) => candidate === req.query.status) ?? 'pending';
        const listed = await accountsFor(ports, status);
        sendHtml(
          res,
          200,
          accountsListPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            status,
            accounts: listed.accounts,
            operatorName: operator.name,
            now: Date.now(),
          }),
        );
      }),
    ),
  );

  const withAccount =
    (handler: (req: Request, res: Response, operator: OperatorViewer, accountId: AccountId) => Promise<void>) =>
    (req: Request, res: Response, operator: OperatorViewer) => {
      const id = String(req.params.id);
      if (!isId('account', id)) {
        tools.notFound(res);
        return Promise.resolve();
      }
      return handler(req, res, operator, id).catch((error: unknown) => {
        if (error instanceof InternalCallError && error.status === 404) return tools.notFound(res);
        throw error;
      });
    };

  const detail = async (
    req: Request,
    res: Response,
    accountId: AccountId,
    status = 200,
    flash: { notice?: string; alert?: string } = {},
  ) => {
    const { locale, messages } = stateOf(res);
    const found = await accountDetail(ports, accountId);
    sendHtml(
      res,
      status,
      accountDetailPage({ locale, messages, csrfToken: csrfToken(req, res), ...found, nonce: newSecret(), ...flash }),
    );
  };

  router.get(
    '/operator/accounts/:id',
    page(
      consolePage(
        withAccount(async (req, res, _operator, accountId) => {
          const { messages } = stateOf(res);
          const done = req.query.done;
          const notice =
            done === 'approve' || done === 'suspend'
              ? messages.operator.decided[done]
              : typeof req.query.balance === 'string'
                ? messages.operator.credited(Number(req.query.balance))
                : undefined;
          await detail(req, res, accountId, 200, notice ? { notice } : {});
        }),
      ),
    ),
  );
  router.post(
    '/operator/accounts/:id/decision',
    ...post(
      consolePage(
        withAccount(async (req, res, operator, accountId) => {
          const { messages, address } = stateOf(res);
          const fields = formFields(req.body);
          const reason = reasonOf(fields.reason);
          const decision = fields.decision === 'approve' || fields.decision === 'suspend' ? fields.decision : null;
          if (!reason || !decision)
            return detail(req, res, accountId, 422, { alert: `${messages.operator.reason}: ${messages.fieldProblems.required}` });
          await decideAccount(ports, operator, accountId, decision, reason, address);
          redirect(res, `/operator/accounts/${accountId}?done=${decision}`);
        }),
      ),
    ),
  );
  router.post(
    '/operator/accounts/:id/credit',
    ...post(
      consolePage(
        withAccount(async (req, res, operator, accountId) => {
          const { messages, address } = stateOf(res);
          const fields = formFields(req.body);
          const reason = reasonOf(fields.reason);
          const tokens = /^\d{1,7}$/.test((fields.tokens ?? '').trim()) ? Number(fields.tokens) : 0;
          if (!reason || tokens < 1 || tokens > 1_000_000) {
            return detail(req, res, accountId, 422, {
              alert: `${messages.operator.tokens} / ${messages.operator.reason}: ${messages.fieldProblems.required}`,
            });
          }
          const result = await creditTokens(ports, operator, accountId, { tokens, reason, nonce: fields.nonce ?? '' }, address);
          if (result.kind === 'duplicate') return detail(req, res, accountId, 409, { alert: messages.operator.duplicate });
          redirect(res, `/operator/accounts/${accountId}?balance=${result.balance}`);
        }),
      ),
    ),
  );
}
