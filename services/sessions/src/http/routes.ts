import {
  ActivityReportBodySchema,
  CreateProjectBodySchema,
  CreateSessionBodySchema,
  CreditBalanceBodySchema,
  HoldSessionBodySchema,
  IdempotencyKeySchema,
  MonthSchema,
  PaginationQuerySchema,
  PublishConfigBodySchema,
  ResolveSessionBodySchema,
  configVersionId,
  idSchema,
} from '@idv/contracts';
import { AppError, endpoint, identityOf, parseInput, type Pool } from '@idv/kit';
import { Router, type Request, type Response } from 'express';
import QRCode from 'qrcode';
import { z } from 'zod';
import { sessionUrl } from '../domain/session';
import type { SessionEvidence } from '../use-cases/evidence-links';
import type { SessionsService } from '../use-cases/sessions.service';
import { monthlyUsage, streamUsageCsv } from '../use-cases/usage';

const accountParams = z.object({ id: idSchema('account') });
const projectParams = z.object({ id: idSchema('project') });
const sessionParams = z.object({ id: idSchema('session') });
const tokenParams = z.object({ token: z.string().regex(/^lt_[A-Za-z0-9_-]{16,128}$/) });
const monthQuery = z.object({ month: MonthSchema });
const QR_FILE = /^(lt_[A-Za-z0-9_-]{16,128})\.(svg|png)$/;

/** Operator CLI and flow-runner operations (`/internal`, behind the internal token). */
export function internalRouter(service: SessionsService): Router {
  const router = Router();

  router.post(
    '/projects',
    endpoint({ body: CreateProjectBodySchema }, async ({ body }) => ({
      status: 201,
      body: await service.createProject(body.account_id, body.name),
    })),
  );

  router.post(
    '/projects/:id/configs',
    endpoint({ params: projectParams, body: PublishConfigBodySchema }, async ({ params, body }) => {
      const version = await service.publishConfig(params.id, body.mode, body.config);
      return { status: 201, body: { id: configVersionId(version), project_id: params.id, mode: body.mode } };
    }),
  );

  router.post(
    '/accounts/:id/credits',
    endpoint({ params: accountParams, body: CreditBalanceBodySchema }, async ({ params, body }) => ({
      status: 200,
      body: { account_id: params.id, balance: await service.credit(params.id, body.tokens) },
    })),
  );

  router.get(
    '/accounts/:id/balance',
    endpoint({ params: accountParams }, async ({ params }) => ({
      status: 200,
      body: { account_id: params.id, balance: await service.balance(params.id) },
    })),
  );

  router.post(
    '/links/:token/redeem',
    endpoint({ params: tokenParams }, async ({ params }) => ({ status: 200, body: await service.redeem(params.token) })),
  );

  router.get(
    '/sessions/:id',
    endpoint({ params: sessionParams }, async ({ params }) => ({ status: 200, body: await service.getInternal(params.id) })),
  );

  router.post(
    '/sessions/activity',
    endpoint({ body: ActivityReportBodySchema }, async ({ body }) => ({
      status: 200,
      body: { sessions: await service.reportActivity(body.session_ids) },
    })),
  );

  router.post(
    '/sessions/:id/hold',
    endpoint({ params: sessionParams, body: HoldSessionBodySchema }, async ({ params, body }) => ({
      status: 200,
      body: { state: await service.hold(params.id, body.until === null ? null : new Date(body.until)) },
    })),
  );

  router.post(
    '/sessions/:id/resolve',
    endpoint({ params: sessionParams, body: ResolveSessionBodySchema }, async ({ params, body }) => ({
      status: 200,
      body: await service.resolve(params.id, body),
    })),
  );

  return router;
}

/** Node reads header bytes as Latin-1; the key's length is counted in the characters the client sent (UTF-8). */
function idempotencyKey(req: Request): string | undefined {
  const raw = req.header('idempotency-key');
  if (raw === undefined) return undefined;
  const sent = Buffer.from(raw, 'latin1').toString('utf8');
  return parseInput(z.object({ 'idempotency-key': IdempotencyKeySchema }), { 'idempotency-key': sent }, 'headers')[
    'idempotency-key'
  ];
}

/** The public API, proxied by the gateway with a signed identity (paths as in PUBLIC_ROUTES). */
export function publicRouter(service: SessionsService, pool: Pool, evidence: SessionEvidence): Router {
  const router = Router();

  // Sessions carry the person's link and, with opt-in options, personal data: no cache may keep them.
  router.use('/verification-sessions', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  router.post(
    '/verification-sessions',
    endpoint({ body: CreateSessionBodySchema }, async ({ body, req, res }) => {
      const result = await service.create(identityOf(res), body, idempotencyKey(req));
      // Sent as stored: a replay is byte for byte the first response.
      if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(result.status).type('application/json').send(result.body);
    }),
  );

  router.get(
    '/verification-sessions',
    endpoint({ query: PaginationQuerySchema }, async ({ query, res }) => {
      const page = await service.list(identityOf(res), query);
      return { status: 200, body: { ...page, data: await evidence.attach(page.data) } };
    }),
  );

  router.get(
    '/verification-sessions/:id',
    endpoint({ params: sessionParams }, async ({ params, res }) => ({
      status: 200,
      body: await evidence.attachOne(await service.get(identityOf(res), params.id)),
    })),
  );

  router.post(
    '/verification-sessions/:id/cancel',
    endpoint({ params: sessionParams }, async ({ params, res }) => ({
      status: 200,
      body: await service.cancel(identityOf(res), params.id),
    })),
  );

  router.get(
    '/usage',
    endpoint({ query: monthQuery }, async ({ query, res }) => ({
      status: 200,
      body: await monthlyUsage(pool, identityOf(res).account_id, query.month),
    })),
  );

  router.get(
    '/usage/sessions.csv',
    endpoint({ query: monthQuery }, async ({ query, res }) => {
      await streamUsageCsv(pool, identityOf(res).account_id, query.month, res, () => {
        res.status(200);
        res.setHeader('content-type', 'text/csv; charset=utf-8');
        res.setHeader('content-disposition', `attachment; filename="sessions-${query.month}.csv"`);
        res.setHeader('cache-control', 'no-store');
      });
      res.end();
    }),
  );

  return router;
}

/** `GET /v1/qr/{token}.svg|.png`: public, no key; the image encodes the session url. */
export function qrHandler(service: SessionsService) {
  return async (req: Request, res: Response) => {
    const match = QR_FILE.exec(String(req.params.file));
    if (!match) throw new AppError('not_found', 'No such link.');
    const [, token, format] = match as unknown as [string, string, 'svg' | 'png'];
    const session = await service.qrTarget(token);
    const url = sessionUrl(service.bases, session.linkToken);
    res.setHeader('cache-control', 'no-store');
    if (format === 'svg') {
      res.type('image/svg+xml').send(await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
    } else {
      res.type('image/png').send(await QRCode.toBuffer(url, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 320 }));
    }
  };
}
