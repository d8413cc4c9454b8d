import { isId } from '@idv/contracts';
import { answerWithoutBody } from '@idv/kit';
import { messages } from '../../domain/i18n';
import type { SubmitResult } from '../../domain/pages';
import { BadRequest } from '../bad-request';
import { readForm } from '../form-body';
import { MULTIPART_LIMIT_BYTES, UNREAD_UPLOAD_BOUNDS, readMultipart, type SubmittedForm } from '../multipart';
import type { PageAction } from '../page-context';
import { redirect, sendNotFound, sendShow, sendStatus } from '../respond';
import { bindingCookieName, handoverCookieName, parseCookies } from '../security';

/**
 * `POST /s/:sessionId`: one step submission, a urlencoded form or a multipart upload (read within the
 * upload budget, and only once the browser is known to hold this flow and the CSRF token came first).
 */
export const submitStepPage: PageAction = async (ctx, { req, res, params, locale }) => {
  const sessionId = params.sessionId ?? '';
  const started = process.hrtime.bigint();
  if (!isId('session', sessionId)) return answerWithoutBody(req, res, () => sendNotFound(res, locale), UNREAD_UPLOAD_BOUNDS);
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  const cookies = parseCookies(req.headers.cookie);
  const secret = cookies[bindingCookieName(sessionId)];
  const handoverToken = cookies[handoverCookieName(sessionId)];
  let form: SubmittedForm;
  const lease = ctx.uploads.budget.lease(ctx.clientAddresses.of(req));
  try {
    if (type === 'multipart/form-data') {
      if (Number(req.headers['content-length'] ?? 0) > MULTIPART_LIMIT_BYTES) {
        throw new BadRequest(413, 'photo over 10 MB', (l) => messages(l).document.refusals.too_large);
      }
      // Nothing of an upload is read before its browser is known to hold this flow: a stranger's body
      // is answered from its headers alone.
      const admission = await ctx.flows.admitSubmission(sessionId, secret);
      if (admission.kind === 'status')
        return answerWithoutBody(req, res, () => sendStatus(res, admission, locale), UNREAD_UPLOAD_BOUNDS);
      form = await readMultipart(req, {
        lease,
        minBytesPerSecond: ctx.uploads.minBytesPerSecond,
        rateWindowMs: ctx.uploads.rateWindowMs,
        admitFiles: (fields) =>
          admission.acceptsCsrf(fields._csrf)
            ? null
            : new BadRequest(403, 'file part before a valid CSRF token', undefined, { page: 'csrf' }),
      }).catch((error: unknown) => {
        if (error instanceof BadRequest) ctx.counters.uploadsRefused.inc({ status: String(error.status) });
        throw error;
      });
    } else {
      form = { fields: await readForm(req), files: {} };
    }
    const result: SubmitResult = await ctx.flows.submit(sessionId, secret, form.fields, locale, form.files, handoverToken);
    ctx.counters.submissions.observe(
      { result: result.kind === 'status' ? result.page : result.kind },
      Number(process.hrtime.bigint() - started) / 1e9,
    );
    if (result.kind === 'redirect') return redirect(res, `/s/${result.sessionId}`);
    await sendShow(res, result, locale, ctx);
  } finally {
    lease.release();
  }
};
