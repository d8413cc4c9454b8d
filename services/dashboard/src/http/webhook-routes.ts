import type express from 'express';
import type { Request, Response } from 'express';
import { formFields, formList } from '../domain/forms';
import { newSecret } from '../domain/secrets';
import { RETRY_HEALTH_MESSAGES } from '../domain/webhook-health-messages';
import { WEBHOOK_MESSAGES, type WebhookMessages } from '../domain/webhook-messages';
import { defaultRetryInput, parseRetryForm, type RetryFormErrors, type RetryInput } from '../domain/webhook-retry';
import { parseDeliveryFilter, parseEndpointForm, type EndpointInput, type WebhookFormErrors } from '../domain/webhooks';
import type { DashboardPorts } from '../use-cases/ports';
import type { Viewer } from '../use-cases/sign-in';
import {
  createEndpoint,
  deleteEndpoint,
  deliveryAttempt,
  deliveryLog,
  endpointOf,
  listEndpoints,
  redeliver,
  rotateSecret,
  sendTest,
  setEndpointStatus,
  updateEndpoint,
  webhookRights,
} from '../use-cases/webhooks';
import { endpointHealth, latestRetries, startRetry } from '../use-cases/webhook-retries';
import { stateOf, type PageTools, type SignedInRoute } from './page-tools';
import { redirect, sendHtml } from './respond';
import { attemptPage, deleteEndpointPage, endpointPage, endpointSecretPage, webhooksPage } from './views/webhooks';

/** The one-line outcomes a redirect names (`?notice=`), each a message of the endpoint's page. */
const NOTICES = {
  saved: 'saved',
  disabled: 'disabled',
  enabled: 'enabled',
  test_sent: 'testSent',
  redelivered: 'redelivered',
} as const satisfies Record<string, keyof WebhookMessages>;

function noticeOf(w: WebhookMessages, value: unknown, retryStarted: string): string | undefined {
  if (value === 'retry_started') return retryStarted;
  if (typeof value !== 'string' || !(value in NOTICES)) return undefined;
  const message = w[NOTICES[value as keyof typeof NOTICES]];
  return typeof message === 'string' ? message : undefined;
}

/**
 * The account's webhooks: the endpoints (every role reads them), each one's circuit and delivery log, and the
 * changes of those who may (`webhooks.write`), each audited. A secret is on the answer of its creation or
 * rotation only; what attempts sent and received only for the roles that may see personal data.
 */
export function mountWebhookPages(
  router: express.Router,
  ports: DashboardPorts,
  tools: PageTools,
  signedIn: SignedInRoute,
): void {
  const { csrfToken, page, post, forbidden, notFound } = tools;
  const common = async (req: Request, res: Response, viewer: Viewer) => {
    const { locale, messages } = stateOf(res);
    const account = await ports.platform.call('getAccount', { id: viewer.accountId });
    return { locale, messages, w: WEBHOOK_MESSAGES[locale], csrfToken: csrfToken(req, res), account };
  };

  const listView = async (
    req: Request,
    res: Response,
    viewer: Viewer,
    extra: { input?: Partial<EndpointInput>; errors?: WebhookFormErrors; alert?: string; notice?: string } = {},
    status = 200,
  ) => {
    const listed = await listEndpoints(ports, viewer);
    if (listed.kind !== 'endpoints') return forbidden(res);
    const base = await common(req, res, viewer);
    sendHtml(
      res,
      status,
      webhooksPage({
        ...base,
        endpoints: listed.endpoints,
        canWrite: webhookRights(viewer).write,
        nonce: newSecret(),
        ...extra,
      }),
    );
  };

  const endpointView = async (
    req: Request,
    res: Response,
    viewer: Viewer,
    extra: {
      input?: Partial<EndpointInput>;
      errors?: WebhookFormErrors;
      formAlert?: string;
      alert?: string;
      notice?: string;
      retryForm?: { input: RetryInput; errors: RetryFormErrors; alert?: string };
    } = {},
    status = 200,
  ) => {
    const id = String(req.params.id);
    const found = await endpointOf(ports, viewer, id);
    if (found.kind === 'forbidden') return forbidden(res);
    if (found.kind === 'not_found') return notFound(res);
    const { filter, invalid } = parseDeliveryFilter(req.method === 'GET' ? req.query : {});
    const [log, retries, health] = await Promise.all([
      deliveryLog(ports, viewer, id, filter),
      latestRetries(ports, viewer, id),
      endpointHealth(ports, viewer, id),
    ]);
    if (log.kind === 'forbidden' || retries.kind === 'forbidden' || health.kind === 'forbidden') return forbidden(res);
    if (log.kind === 'not_found' || retries.kind === 'not_found' || health.kind === 'not_found') return notFound(res);
    const base = await common(req, res, viewer);
    const { retryForm, ...rest } = extra;
    sendHtml(
      res,
      status === 200 && invalid.length > 0 ? 400 : status,
      endpointPage({
        ...base,
        endpoint: found.endpoint,
        canWrite: webhookRights(viewer).write,
        filter: log.cursorRefused ? { ...filter, cursor: null } : filter,
        invalid: log.cursorRefused ? [...invalid, 'cursor'] : invalid,
        deliveries: log.deliveries,
        next: log.next,
        ...rest,
        retry: {
          r: RETRY_HEALTH_MESSAGES[base.locale],
          retries: retries.retries,
          health: health.health,
          input: retryForm?.input ?? defaultRetryInput(),
          errors: retryForm?.errors ?? {},
          ...(retryForm?.alert ? { alert: retryForm.alert } : {}),
        },
      }),
    );
  };

  router.get(
    '/webhooks',
    page(
      signedIn(async (req, res, viewer) => {
        const w = WEBHOOK_MESSAGES[stateOf(res).locale];
        const deleted = typeof req.query.deleted === 'string' ? req.query.deleted.slice(0, 2048) : undefined;
        await listView(req, res, viewer, deleted ? { notice: w.deleted(deleted) } : {});
      }),
    ),
  );

  router.post(
    '/webhooks',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { address, locale } = stateOf(res);
        const w = WEBHOOK_MESSAGES[locale];
        if (!webhookRights(viewer).write) return forbidden(res);
        const fields = formFields(req.body);
        const { input, errors } = parseEndpointForm(fields, formList(req.body, 'events'));
        if (Object.keys(errors).length) return listView(req, res, viewer, { input, errors }, 422);
        const result = await createEndpoint(ports, viewer, input, fields.nonce ?? '', address);
        switch (result.kind) {
          case 'forbidden':
            return forbidden(res);
          case 'not_found':
            return notFound(res);
          case 'duplicate':
            return listView(req, res, viewer, { alert: w.duplicate }, 409);
          case 'refused':
            return listView(req, res, viewer, { input, alert: w.refused(result.detail) }, 422);
          case 'created':
            return sendHtml(
              res,
              201,
              endpointSecretPage({ ...(await common(req, res, viewer)), endpoint: result.endpoint, rotated: false }),
            );
        }
      }),
    ),
  );

  router.get(
    '/webhooks/:id',
    page(
      signedIn(async (req, res, viewer) => {
        const { locale } = stateOf(res);
        const notice = noticeOf(WEBHOOK_MESSAGES[locale], req.query.notice, RETRY_HEALTH_MESSAGES[locale].retryStarted);
        await endpointView(req, res, viewer, notice ? { notice } : {});
      }),
    ),
  );

  router.post(
    '/webhooks/:id',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { address, locale } = stateOf(res);
        const w = WEBHOOK_MESSAGES[locale];
        if (!webhookRights(viewer).write) return forbidden(res);
        const { input, errors } = parseEndpointForm(formFields(req.body), formList(req.body, 'events'));
        if (Object.keys(errors).length) return endpointView(req, res, viewer, { input, errors }, 422);
        const result = await updateEndpoint(ports, viewer, String(req.params.id), input, address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return notFound(res);
        if (result.kind === 'refused') return endpointView(req, res, viewer, { input, formAlert: w.refused(result.detail) }, 422);
        redirect(res, `/webhooks/${result.endpoint.id}?notice=saved`);
      }),
    ),
  );

  router.post(
    '/webhooks/:id/status',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { address, locale } = stateOf(res);
        if (!webhookRights(viewer).write) return forbidden(res);
        const status = formFields(req.body).status;
        if (status !== 'active' && status !== 'disabled') {
          return endpointView(req, res, viewer, { alert: WEBHOOK_MESSAGES[locale].problems.required }, 422);
        }
        const result = await setEndpointStatus(ports, viewer, String(req.params.id), status, address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind !== 'updated') return notFound(res);
        redirect(res, `/webhooks/${result.endpoint.id}?notice=${status === 'active' ? 'enabled' : 'disabled'}`);
      }),
    ),
  );

  router.get(
    '/webhooks/:id/delete',
    page(
      signedIn(async (req, res, viewer) => {
        if (!webhookRights(viewer).write) return forbidden(res);
        const found = await endpointOf(ports, viewer, String(req.params.id));
        if (found.kind === 'forbidden') return forbidden(res);
        if (found.kind === 'not_found') return notFound(res);
        sendHtml(res, 200, deleteEndpointPage({ ...(await common(req, res, viewer)), endpoint: found.endpoint }));
      }),
    ),
  );

  router.post(
    '/webhooks/:id/delete',
    ...post(
      signedIn(async (req, res, viewer) => {
        if (!webhookRights(viewer).write) return forbidden(res);
        const result = await deleteEndpoint(ports, viewer, String(req.params.id), stateOf(res).address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return notFound(res);
        redirect(res, `/webhooks?deleted=${encodeURIComponent(result.endpoint.url)}`);
      }),
    ),
  );

  router.post(
    '/webhooks/:id/rotate',
    ...post(
      signedIn(async (req, res, viewer) => {
        if (!webhookRights(viewer).write) return forbidden(res);
        const result = await rotateSecret(ports, viewer, String(req.params.id), stateOf(res).address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return notFound(res);
        sendHtml(res, 200, endpointSecretPage({ ...(await common(req, res, viewer)), endpoint: result.endpoint, rotated: true }));
      }),
    ),
  );

  router.post(
    '/webhooks/:id/test',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { address, locale } = stateOf(res);
        if (!webhookRights(viewer).write) return forbidden(res);
        const result = await sendTest(ports, viewer, String(req.params.id), address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return notFound(res);
        if (result.kind === 'rate_limited') {
          return endpointView(req, res, viewer, { alert: WEBHOOK_MESSAGES[locale].rateLimited }, 429);
        }
        redirect(res, `/webhooks/${String(req.params.id)}?notice=test_sent`);
      }),
    ),
  );

  router.post(
    '/webhooks/:id/retries',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { address, locale } = stateOf(res);
        const r = RETRY_HEALTH_MESSAGES[locale];
        if (!webhookRights(viewer).write) return forbidden(res);
        const { input, errors, range } = parseRetryForm(formFields(req.body));
        if (!range) return endpointView(req, res, viewer, { retryForm: { input, errors } }, 422);
        const result = await startRetry(ports, viewer, String(req.params.id), range, address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return notFound(res);
        if (result.kind === 'conflict')
          return endpointView(req, res, viewer, { retryForm: { input, errors, alert: r.retryConflict } }, 409);
        if (result.kind === 'refused') {
          return endpointView(req, res, viewer, { retryForm: { input, errors, alert: result.detail } }, 422);
        }
        redirect(res, `/webhooks/${String(req.params.id)}?notice=retry_started#retry`);
      }),
    ),
  );

  const attemptView = async (req: Request, res: Response, viewer: Viewer, alert?: string, status = 200) => {
    const endpointId = String(req.params.id);
    const [found, attempt] = await Promise.all([
      endpointOf(ports, viewer, endpointId),
      deliveryAttempt(ports, viewer, endpointId, String(req.params.deliveryId), stateOf(res).address),
    ]);
    if (found.kind === 'forbidden' || attempt.kind === 'forbidden') return forbidden(res);
    if (found.kind === 'not_found' || attempt.kind === 'not_found') return notFound(res);
    const rights = webhookRights(viewer);
    sendHtml(
      res,
      status,
      attemptPage({
        ...(await common(req, res, viewer)),
        endpoint: found.endpoint,
        attempt: attempt.attempt,
        showBodies: rights.bodies,
        canWrite: rights.write,
        ...(alert ? { alert } : {}),
      }),
    );
  };

  router.get('/webhooks/:id/deliveries/:deliveryId', page(signedIn((req, res, viewer) => attemptView(req, res, viewer))));

  router.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { address, locale } = stateOf(res);
        if (!webhookRights(viewer).write) return forbidden(res);
        const result = await redeliver(ports, viewer, String(req.params.id), String(req.params.deliveryId), address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return notFound(res);
        if (result.kind === 'rate_limited') return attemptView(req, res, viewer, WEBHOOK_MESSAGES[locale].rateLimited, 429);
        redirect(res, `/webhooks/${String(req.params.id)}?notice=redelivered`);
      }),
    ),
  );
}
