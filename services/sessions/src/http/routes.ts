import { configVersionId, internalRoute, publicRoute } from '@idv/contracts';
import { identityOf, route, type Pool } from '@idv/kit';
import QRCode from 'qrcode';
import { sessionUrl } from '../domain/session';
import type { SessionEvidence } from '../use-cases/evidence-links';
import type { SessionsService } from '../use-cases/sessions.service';
import { monthlyUsage, monthsUsage } from '../use-cases/usage';
import { sendUsageCsv } from './usage-csv';

export interface RouteDeps {
  service: SessionsService;
  pool: Pool;
  evidence: SessionEvidence;
}

/** Operator CLI and flow-runner operations (INTERNAL_ROUTES, behind the internal token). */
export const internalRoutes = [
  route(internalRoute('createProject'), async ({ body }, { service }: RouteDeps) => ({
    status: 201,
    body: await service.createProject(body.account_id, body.name),
  })),
  route(internalRoute('listProjects'), async ({ params }, { service }: RouteDeps) => ({
    status: 200,
    body: { object: 'list' as const, data: await service.listProjects(params.id), has_more: false },
  })),
  route(internalRoute('renameProject'), async ({ params, body }, { service }: RouteDeps) => ({
    status: 200,
    body: await service.renameProject(params.id, body.name),
  })),
  route(internalRoute('listConfigVersions'), async ({ params }, { service }: RouteDeps) => {
    const { versions, hasMore } = await service.configVersions(params.id);
    return { status: 200, body: { object: 'list' as const, data: versions, has_more: hasMore } };
  }),
  route(internalRoute('publishConfig'), async ({ params, body }, { service }: RouteDeps) => {
    const version = await service.publishConfig(params.id, body.mode, body.config);
    return { status: 201, body: { id: configVersionId(version), project_id: params.id, mode: body.mode } };
  }),
  route(internalRoute('createTrySession'), async ({ params, body }, { service }: RouteDeps) => ({
    status: 201,
    body: await service.tryDraft(body.account_id, params.id, body.config),
  })),
  route(internalRoute('creditBalance'), async ({ params, body }, { service }: RouteDeps) => ({
    status: 200,
    body: { account_id: params.id, balance: await service.credit(params.id, body.tokens, body.reason) },
  })),
  route(internalRoute('getBalance'), async ({ params }, { service }: RouteDeps) => ({
    status: 200,
    body: { account_id: params.id, balance: await service.balance(params.id) },
  })),
  route(internalRoute('getBalanceLedger'), async ({ params, query }, { service }: RouteDeps) => {
    const page = await service.ledger(params.id, query.before ?? null, query.limit);
    return {
      status: 200,
      body: {
        account_id: params.id,
        balance: page.balance,
        debited_last_7_days: page.debitedLast7Days,
        threshold: page.threshold,
        default_threshold: page.defaultThreshold,
        data: page.entries.map((entry) => ({
          id: entry.id,
          kind: entry.kind,
          tokens: entry.tokens,
          reason: entry.reason,
          session_id: entry.sessionId,
          created_at: entry.createdAt.toISOString(),
        })),
        has_more: page.hasMore,
      },
    };
  }),
  route(internalRoute('setBalanceThreshold'), async ({ params, body }, { service }: RouteDeps) => ({
    status: 200,
    body: await service.setBalanceThreshold(params.id, body.tokens),
  })),
  route(internalRoute('getFlowReadiness'), async ({ params }, { service }: RouteDeps) => {
    const { liveProjects, balance } = await service.flowReadiness(params.id);
    return { status: 200, body: { account_id: params.id, live_projects: liveProjects, balance } };
  }),
  route(internalRoute('getAccountUsageMonths'), async ({ params, query }, { pool }: RouteDeps) => ({
    status: 200,
    body: { object: 'list' as const, data: await monthsUsage(pool, params.id, query.from, query.to) },
  })),
  route(internalRoute('exportAccountUsageCsv'), async ({ params, query, res }, { pool }: RouteDeps) => {
    await sendUsageCsv(pool, params.id, query.month, res);
  }),
  route(internalRoute('getAccountUsage'), async ({ params, query }, { pool }: RouteDeps) => ({
    status: 200,
    body: await monthlyUsage(pool, params.id, query.month),
  })),
  route(internalRoute('listAccountSessions'), async ({ params, query }, { service }: RouteDeps) => ({
    status: 200,
    body: await service.listForAccount(params.id, query),
  })),
  route(internalRoute('getAccountSession'), async ({ params }, { service }: RouteDeps) => ({
    status: 200,
    body: await service.getForAccount(params.id, params.sessionId),
  })),
  route(internalRoute('cancelAccountSession'), async ({ params }, { service }: RouteDeps) => ({
    status: 200,
    body: await service.cancelForAccount(params.id, params.sessionId),
  })),
  route(internalRoute('redeemLink'), async ({ params }, { service }: RouteDeps) => ({
    status: 200,
    body: await service.redeem(params.token),
  })),
  route(internalRoute('getInternalSession'), async ({ params }, { service }: RouteDeps) => ({
    status: 200,
    body: await service.getInternal(params.id),
  })),
  route(internalRoute('reportActivity'), async ({ body }, { service }: RouteDeps) => ({
    status: 200,
    body: { sessions: await service.reportActivity(body.session_ids.map((id) => id)) },
  })),
  route(internalRoute('holdSession'), async ({ params, body }, { service }: RouteDeps) => ({
    status: 200,
    body: { state: await service.hold(params.id, body.until === null ? null : new Date(body.until)) },
  })),
  route(internalRoute('resolveSession'), async ({ params, body }, { service }: RouteDeps) => ({
    status: 200,
    body: await service.resolve(params.id, body),
  })),
];

/** The public API (PUBLIC_ROUTES), proxied by the gateway with a signed identity. */
export const publicRoutes = [
  route(publicRoute('createVerificationSession'), async ({ body, headers, res }, { service }: RouteDeps) => {
    const result = await service.create(identityOf(res), body, headers['idempotency-key']);
    // Sent as stored: a replay is byte for byte the first response.
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(result.status).type('application/json').send(result.body);
  }),
  route(publicRoute('listVerificationSessions'), async ({ query, res }, { service, evidence }: RouteDeps) => {
    const page = await service.list(identityOf(res), query);
    return { status: 200, body: { ...page, data: await evidence.attach(page.data) } };
  }),
  route(publicRoute('getVerificationSession'), async ({ params, res }, { service, evidence }: RouteDeps) => ({
    status: 200,
    body: await evidence.attachOne(await service.get(identityOf(res), params.id)),
  })),
  route(publicRoute('cancelVerificationSession'), async ({ params, res }, { service }: RouteDeps) => ({
    status: 200,
    body: await service.cancel(identityOf(res), params.id),
  })),
  route(publicRoute('getUsage'), async ({ query, res }, { pool }: RouteDeps) => ({
    status: 200,
    body: await monthlyUsage(pool, identityOf(res).account_id, query.month),
  })),
  route(publicRoute('exportUsageSessionsCsv'), async ({ query, res }, { pool }: RouteDeps) => {
    await sendUsageCsv(pool, identityOf(res).account_id, query.month, res);
  }),
];

/** A token of the wrong shape names no link: the document promises 404 for these paths, not 422. */
const NO_SUCH_LINK = { paramsMismatch: { code: 'not_found', detail: 'No such link.' } } as const;

/** `GET /v1/qr/{token}.svg|.png`: public, no key; the image encodes the session url. */
export const qrRoutes = [
  route(
    publicRoute('getQrSvg'),
    async ({ params, res }, { service }: RouteDeps) => {
      const url = sessionUrl(service.bases, (await service.qrTarget(params.token)).linkToken);
      res.setHeader('cache-control', 'no-store');
      res.type('image/svg+xml').send(await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
    },
    NO_SUCH_LINK,
  ),
  route(
    publicRoute('getQrPng'),
    async ({ params, res }, { service }: RouteDeps) => {
      const url = sessionUrl(service.bases, (await service.qrTarget(params.token)).linkToken);
      res.setHeader('cache-control', 'no-store');
      res.type('image/png').send(await QRCode.toBuffer(url, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 320 }));
    },
    NO_SUCH_LINK,
  ),
];
