import { CreateWebhookEndpointBodySchema, UpdateWebhookEndpointBodySchema, WebhookReadinessSchema } from './webhooks';
import {
  AccountWebhookEndpointListSchema,
  AccountWebhookEndpointSchema,
  AccountWebhookEndpointWithSecretSchema,
  DeletedWebhookEndpointSchema,
  WebhookDeliveryAttemptSchema,
  WebhookDeliveryLogQuerySchema,
  WebhookDeliveryLogSchema,
  StartWebhookRetryBodySchema,
  WebhookHealthSchema,
  WebhookRetryListSchema,
  WebhookRetrySchema,
} from './webhooks-internal';
import {
  AccountSessionListSchema,
  AccountSessionSchema,
  AccountSessionsQuerySchema,
  SessionWebhookDeliveriesSchema,
} from './account-sessions';
import { CreateAccountOwnerBodySchema, CreateOperatorBodySchema, DashboardUserSchema, OperatorSchema } from './dashboard';
import { idSchema, linkTokenSchema } from './ids';
import {
  ACCOUNT_STATUSES,
  AccountReadinessSchema,
  AccountSchema,
  ApiKeySchema,
  CreateAccountBodySchema,
  CreateApiKeyBodySchema,
  ResolveKeyBodySchema,
  ResolvedKeySchema,
  RollApiKeyBodySchema,
} from './keys';
import type { RouteContract } from './routes';
import {
  ActivityReportBodySchema,
  ActivityReportResultSchema,
  BalanceLedgerQuerySchema,
  BalanceLedgerSchema,
  BalanceSchema,
  BalanceThresholdSchema,
  ConfigVersionEntrySchema,
  CreateProjectBodySchema,
  CreateTrySessionBodySchema,
  CreditBalanceBodySchema,
  EvidenceLinksBodySchema,
  EvidenceLinksResultSchema,
  FlowReadinessSchema,
  HoldSessionBodySchema,
  HoldSessionResultSchema,
  InternalSessionSchema,
  ProjectOverviewSchema,
  ProjectSchema,
  PublishConfigBodySchema,
  PublishedConfigSchema,
  RenameProjectBodySchema,
  ResolveSessionBodySchema,
  SetBalanceThresholdBodySchema,
  UsageSchema,
  VerificationSessionSchema,
} from './sessions';
import { MonthSchema, PaginationQuerySchema, QueuedSchema } from './common';
import { FlowTimelineQuerySchema, FlowTimelineSchema } from './timeline';
import {
  EvidenceDownloadsQuerySchema,
  EvidenceDownloadsSchema,
  SessionCaptureParamsSchema,
  SessionCapturesSchema,
} from './session-captures';
import { UsageMonthsQuerySchema, UsageMonthsSchema } from './usage';
import { z } from './zod';

/** Services that own service-to-service routes. */
export type InternalService = 'keys' | 'sessions' | 'flow-runner' | 'webhooks' | 'dashboard';

/**
 * One service-to-service route (`/internal/...`, behind the shared internal token): never proxied by
 * the gateway and never in the OpenAPI document. The owner mounts it with the kit's `route()`; its
 * callers (the gateway, the flow-runner, webhooks, the ops CLI) parse the answer with `responses`.
 */
export interface InternalRoute extends RouteContract {
  service: InternalService;
  summary: string;
}

const accountParams = z.object({ id: idSchema('account') });
const apiKeyParams = z.object({ id: idSchema('apiKey') });
const projectParams = z.object({ id: idSchema('project') });
const sessionParams = z.object({ id: idSchema('session') });
const tokenParams = z.object({ token: linkTokenSchema() });
const webhookEndpointParams = z.object({ id: idSchema('account'), endpoint_id: idSchema('webhookEndpoint') });
const webhookDeliveryParams = z.object({ id: idSchema('account'), delivery_id: idSchema('webhookDelivery') });
const accountSessionParams = z.object({ id: idSchema('account'), sessionId: idSchema('session') });

export const AccountListSchema = z.object({ object: z.literal('list'), data: z.array(AccountSchema), has_more: z.boolean() });
/** The operator console's lists: by status, oldest first (the longest waiting on top). */
export const ListAccountsQuerySchema = z.object({
  status: z.enum(ACCOUNT_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});

export const ProjectOverviewListSchema = z.object({
  object: z.literal('list'),
  data: z.array(ProjectOverviewSchema),
  has_more: z.boolean(),
});
export const ConfigVersionListSchema = z.object({
  object: z.literal('list'),
  data: z.array(ConfigVersionEntrySchema),
  has_more: z.boolean(),
});

export const ApiKeyListSchema = z.object({ object: z.literal('list'), data: z.array(ApiKeySchema), has_more: z.boolean() });
/** The one answer that carries a key's secret: its creation (or a roll's replacement). */
export const CreatedApiKeySchema = ApiKeySchema.extend({ secret: z.string() });
export const RolledApiKeySchema = z.object({ replacement: CreatedApiKeySchema, rolled: ApiKeySchema });

const INTERNAL_ROUTE_ENTRIES = [
  // keys: the operator CLI (accounts, keys) and the gateway (resolve).
  {
    operationId: 'createAccount',
    method: 'post',
    path: '/internal/accounts',
    service: 'keys',
    summary: 'Create an account (pending until approved)',
    body: CreateAccountBodySchema,
    responses: { 201: { description: 'Created', schema: AccountSchema } },
  },
  {
    operationId: 'listAccounts',
    method: 'get',
    path: '/internal/accounts',
    service: 'keys',
    summary: 'Accounts, oldest first, optionally of one status (the operator console)',
    query: ListAccountsQuerySchema,
    responses: { 200: { description: 'The accounts', schema: AccountListSchema } },
  },
  {
    operationId: 'getAccount',
    method: 'get',
    path: '/internal/accounts/{id}',
    service: 'keys',
    summary: 'One account',
    params: accountParams,
    responses: { 200: { description: 'The account', schema: AccountSchema }, 404: { description: 'No such account' } },
  },
  {
    operationId: 'getAccountReadiness',
    method: 'get',
    path: '/internal/accounts/{id}/readiness',
    service: 'keys',
    summary: "One account and how many of its live keys work (the dashboard's go-live checklist)",
    params: accountParams,
    responses: {
      200: { description: 'The account and its live keys', schema: AccountReadinessSchema },
      404: { description: 'No such account' },
    },
  },
  {
    operationId: 'approveAccount',
    method: 'post',
    path: '/internal/accounts/{id}/approve',
    service: 'keys',
    summary: 'Activate an account',
    params: accountParams,
    responses: { 200: { description: 'The account', schema: AccountSchema }, 404: { description: 'No such account' } },
  },
  {
    operationId: 'suspendAccount',
    method: 'post',
    path: '/internal/accounts/{id}/suspend',
    service: 'keys',
    summary: 'Suspend an account',
    params: accountParams,
    responses: { 200: { description: 'The account', schema: AccountSchema }, 404: { description: 'No such account' } },
  },
  {
    operationId: 'listApiKeys',
    method: 'get',
    path: '/internal/accounts/{id}/api-keys',
    service: 'keys',
    summary: 'Every key of an account (never a secret)',
    params: accountParams,
    responses: { 200: { description: 'The keys', schema: ApiKeyListSchema } },
  },
  {
    operationId: 'createApiKey',
    method: 'post',
    path: '/internal/api-keys',
    service: 'keys',
    summary: 'Create a key; the secret is in this answer only',
    body: CreateApiKeyBodySchema,
    responses: { 201: { description: 'Created, with its secret', schema: CreatedApiKeySchema } },
  },
  {
    operationId: 'revokeApiKey',
    method: 'post',
    path: '/internal/api-keys/{id}/revoke',
    service: 'keys',
    summary: 'Revoke a key',
    params: apiKeyParams,
    responses: { 200: { description: 'The key', schema: ApiKeySchema }, 404: { description: 'No such key' } },
  },
  {
    operationId: 'rollApiKey',
    method: 'post',
    path: '/internal/api-keys/{id}/roll',
    service: 'keys',
    summary: 'Replace a key: a new one with the same name, mode and scopes; the old one revoked now or after a delay',
    params: apiKeyParams,
    body: RollApiKeyBodySchema,
    responses: {
      201: { description: 'The replacement (with its secret) and the old key', schema: RolledApiKeySchema },
      404: { description: 'No such key' },
      409: { description: 'The key is revoked already' },
    },
  },
  {
    operationId: 'resolveApiKey',
    method: 'post',
    path: '/internal/api-keys/resolve',
    service: 'keys',
    summary: "The gateway's lookup of a presented secret, by its hash",
    body: ResolveKeyBodySchema,
    responses: { 200: { description: 'The key', schema: ResolvedKeySchema }, 404: { description: 'No key has this hash' } },
  },

  // sessions: the operator CLI (projects, configurations, balance) and the flow-runner (links, sessions).
  {
    operationId: 'createProject',
    method: 'post',
    path: '/internal/projects',
    service: 'sessions',
    summary: 'Create a project of an account',
    body: CreateProjectBodySchema,
    responses: { 201: { description: 'Created', schema: ProjectSchema } },
  },
  {
    operationId: 'listProjects',
    method: 'get',
    path: '/internal/accounts/{id}/projects',
    service: 'sessions',
    summary: "An account's projects with each mode's current version (the dashboard)",
    params: accountParams,
    responses: { 200: { description: 'The projects', schema: ProjectOverviewListSchema } },
  },
  {
    operationId: 'renameProject',
    method: 'post',
    path: '/internal/projects/{id}/name',
    service: 'sessions',
    summary: 'Rename a project',
    params: projectParams,
    body: RenameProjectBodySchema,
    responses: { 200: { description: 'The project', schema: ProjectOverviewSchema }, 404: { description: 'No such project' } },
  },
  {
    operationId: 'listConfigVersions',
    method: 'get',
    path: '/internal/projects/{id}/configs',
    service: 'sessions',
    summary: "A project's published versions, newest first, with their configurations (history and diffs)",
    params: projectParams,
    responses: { 200: { description: 'The versions', schema: ConfigVersionListSchema }, 404: { description: 'No such project' } },
  },
  {
    operationId: 'publishConfig',
    method: 'post',
    path: '/internal/projects/{id}/configs',
    service: 'sessions',
    summary: 'Publish a new configuration version of a project in one mode',
    params: projectParams,
    body: PublishConfigBodySchema,
    responses: { 201: { description: 'Published', schema: PublishedConfigSchema }, 404: { description: 'No such project' } },
  },
  {
    operationId: 'createTrySession',
    method: 'post',
    path: '/internal/projects/{id}/tries',
    service: 'sessions',
    summary: 'A test session on a draft configuration, without publishing it (the dashboard\'s "Try it")',
    params: projectParams,
    body: CreateTrySessionBodySchema,
    responses: {
      201: { description: 'The try, with its link', schema: InternalSessionSchema },
      404: { description: 'No such project of this account' },
      429: { description: 'Too many tries of this account in the last hour (`rate_limited`)' },
    },
  },
  {
    operationId: 'creditBalance',
    method: 'post',
    path: '/internal/accounts/{id}/credits',
    service: 'sessions',
    summary: "Add tokens to an account's balance",
    params: accountParams,
    body: CreditBalanceBodySchema,
    responses: { 200: { description: 'The new balance', schema: BalanceSchema } },
  },
  {
    operationId: 'getBalance',
    method: 'get',
    path: '/internal/accounts/{id}/balance',
    service: 'sessions',
    summary: "An account's balance of tokens",
    params: accountParams,
    responses: { 200: { description: 'The balance', schema: BalanceSchema } },
  },
  {
    operationId: 'getBalanceLedger',
    method: 'get',
    path: '/internal/accounts/{id}/ledger',
    service: 'sessions',
    summary: "An account's balance, its last 7 days' debits and a page of its ledger, newest first (the dashboard)",
    params: accountParams,
    query: BalanceLedgerQuerySchema,
    responses: { 200: { description: 'The balance and the page', schema: BalanceLedgerSchema } },
  },
  {
    operationId: 'setBalanceThreshold',
    method: 'put',
    path: '/internal/accounts/{id}/balance-threshold',
    service: 'sessions',
    summary: "Set (or clear, back to the default) an account's low-balance threshold (the dashboard's tokens page)",
    params: accountParams,
    body: SetBalanceThresholdBodySchema,
    responses: { 200: { description: 'The threshold', schema: BalanceThresholdSchema } },
  },
  {
    operationId: 'getFlowReadiness',
    method: 'get',
    path: '/internal/accounts/{id}/flow-readiness',
    service: 'sessions',
    summary: "An account's projects with a live configuration and its balance (the dashboard's go-live checklist)",
    params: accountParams,
    responses: { 200: { description: 'The readiness', schema: FlowReadinessSchema } },
  },
  {
    operationId: 'getAccountUsageMonths',
    method: 'get',
    path: '/internal/accounts/{id}/usage/months',
    service: 'sessions',
    summary:
      "An account's usage of each month of a range, in one answer (the dashboard's chart): each the public `GET /v1/usage`",
    params: accountParams,
    query: UsageMonthsQuerySchema,
    responses: { 200: { description: 'Usage of each month, oldest first', schema: UsageMonthsSchema } },
  },
  {
    operationId: 'exportAccountUsageCsv',
    method: 'get',
    path: '/internal/accounts/{id}/usage/sessions.csv',
    service: 'sessions',
    summary:
      "An account's usage CSV of a month, byte for byte the public `GET /v1/usage/sessions.csv` (the dashboard's download)",
    params: accountParams,
    query: z.object({ month: MonthSchema }),
    responses: {
      200: { description: 'CSV, one row per session', contentType: 'text/csv' },
    },
  },
  {
    operationId: 'getAccountUsage',
    method: 'get',
    path: '/internal/accounts/{id}/usage',
    service: 'sessions',
    summary: "An account's usage of a month (the public `GET /v1/usage`, for the operator console and the dashboard)",
    params: accountParams,
    query: z.object({ month: MonthSchema }),
    responses: { 200: { description: 'Usage of the month', schema: UsageSchema } },
  },
  {
    operationId: 'listAccountSessions',
    method: 'get',
    path: '/internal/accounts/{id}/sessions',
    service: 'sessions',
    summary: "An account's sessions of one mode, filtered, newest first by a cursor (the dashboard's list; tries apart)",
    params: accountParams,
    query: AccountSessionsQuerySchema,
    responses: {
      200: { description: 'A page of sessions', schema: AccountSessionListSchema },
      422: { description: 'A filter or the cursor is malformed (`validation_failed`, `invalid_cursor`)' },
    },
  },
  {
    operationId: 'getAccountSession',
    method: 'get',
    path: '/internal/accounts/{id}/sessions/{sessionId}',
    service: 'sessions',
    summary: 'One session of an account, with its frozen configuration and the key that created it (the dashboard)',
    params: accountSessionParams,
    responses: {
      200: { description: 'The session', schema: AccountSessionSchema },
      404: { description: 'No such session of this account' },
    },
  },
  {
    operationId: 'cancelAccountSession',
    method: 'post',
    path: '/internal/accounts/{id}/sessions/{sessionId}/cancel',
    service: 'sessions',
    summary: "Cancel an account's session from the dashboard (the public cancel's rules: a terminal session is left as it is)",
    params: accountSessionParams,
    responses: {
      200: { description: 'The session', schema: AccountSessionSchema },
      404: { description: 'No such session of this account' },
      409: { description: 'The session has ended already (`session_terminal`)' },
    },
  },
  {
    operationId: 'redeemLink',
    method: 'post',
    path: '/internal/links/{token}/redeem',
    service: 'sessions',
    summary: "The person's first open of a link: marks it redeemed and answers the session",
    params: tokenParams,
    responses: {
      200: { description: 'The session, with its frozen configuration', schema: InternalSessionSchema },
      404: { description: 'No such link' },
      409: { description: 'The session is terminal (`session_terminal`)' },
      410: { description: 'Already redeemed (`link_redeemed`) or expired (`link_expired`)' },
    },
  },
  {
    operationId: 'getInternalSession',
    method: 'get',
    path: '/internal/sessions/{id}',
    service: 'sessions',
    summary: 'A session with its frozen configuration',
    params: sessionParams,
    responses: {
      200: { description: 'The session', schema: InternalSessionSchema },
      404: { description: 'No such session' },
    },
  },
  {
    operationId: 'reportActivity',
    method: 'post',
    path: '/internal/sessions/activity',
    service: 'sessions',
    summary: "The sessions whose person just submitted a step: pushes each one's idle deadline",
    body: ActivityReportBodySchema,
    responses: { 200: { description: 'The state of each named session', schema: ActivityReportResultSchema } },
  },
  {
    operationId: 'holdSession',
    method: 'post',
    path: '/internal/sessions/{id}/hold',
    service: 'sessions',
    summary: 'Keeps a session from being abandoned while a background check runs (or releases it)',
    params: sessionParams,
    body: HoldSessionBodySchema,
    responses: {
      200: { description: 'The session state', schema: HoldSessionResultSchema },
      404: { description: 'No such session' },
    },
  },
  {
    operationId: 'resolveSession',
    method: 'post',
    path: '/internal/sessions/{id}/resolve',
    service: 'sessions',
    summary: "The flow-runner's verdict",
    params: sessionParams,
    body: ResolveSessionBodySchema,
    responses: {
      200: { description: 'The resolved session', schema: VerificationSessionSchema },
      404: { description: 'No such session' },
      409: { description: 'The session is already terminal (`session_terminal`) or was changing (`conflict`)' },
    },
  },

  // flow-runner: the sessions and webhooks services, when they send a session that opted in.
  {
    operationId: 'createEvidenceLinks',
    method: 'post',
    path: '/internal/evidence-links',
    service: 'flow-runner',
    summary: 'Fresh signed evidence links of up to 100 sessions',
    body: EvidenceLinksBodySchema,
    responses: { 200: { description: 'The links of each session', schema: EvidenceLinksResultSchema } },
  },
  // flow-runner: the dashboard's session page (issue 41).
  {
    operationId: 'getFlowTimeline',
    method: 'get',
    path: '/internal/accounts/{id}/sessions/{sessionId}/timeline',
    service: 'flow-runner',
    summary:
      "What happened in a session's flow, oldest first (link opened, steps, captures and readings, codes, registry calls, the flow's verdict); no personal data",
    params: z.object({ id: idSchema('account'), sessionId: idSchema('session') }),
    query: FlowTimelineQuerySchema,
    responses: {
      200: {
        description: 'A page of the timeline (empty for a session of the account whose link was never opened)',
        schema: FlowTimelineSchema,
      },
      404: { description: 'No such session of this account' },
    },
  },
  // flow-runner: the dashboard's session page, its captured images and the person's access trail (issue 41).
  {
    operationId: 'listSessionCaptures',
    method: 'get',
    path: '/internal/accounts/{id}/sessions/{sessionId}/captures',
    service: 'flow-runner',
    summary: "Which of a session's images are kept (the latest capture of each artifact), without their bytes",
    params: z.object({ id: idSchema('account'), sessionId: idSchema('session') }),
    responses: {
      200: { description: 'The captures (empty before any, and once retention removed them)', schema: SessionCapturesSchema },
      404: { description: 'No such session of this account' },
    },
  },
  {
    operationId: 'getSessionCapture',
    method: 'get',
    path: '/internal/accounts/{id}/sessions/{sessionId}/captures/{artifact}',
    service: 'flow-runner',
    summary: "The latest capture of one of a session's artifacts, decrypted: the image's bytes (`Cache-Control: no-store`)",
    params: SessionCaptureParamsSchema,
    responses: {
      200: { description: 'The image (`image/jpeg`, `image/png` or `image/webp`)', contentType: 'image/jpeg' },
      404: { description: 'No such session of this account, no such capture, or removed by retention' },
    },
  },
  {
    operationId: 'listSessionEvidenceDownloads',
    method: 'get',
    path: '/internal/accounts/{id}/sessions/{sessionId}/evidence-downloads',
    service: 'flow-runner',
    summary: "Each use of a session's evidence links, newest first: when, which artifact, served or refused, from which address",
    params: z.object({ id: idSchema('account'), sessionId: idSchema('session') }),
    query: EvidenceDownloadsQuerySchema,
    responses: {
      200: { description: 'The downloads (never a link, a token or a signature)', schema: EvidenceDownloadsSchema },
      404: { description: 'No such session of this account' },
    },
  },

  // webhooks: the dashboard's go-live checklist.
  {
    operationId: 'getWebhookReadiness',
    method: 'get',
    path: '/internal/accounts/{id}/webhook-readiness',
    service: 'webhooks',
    summary: "An account's endpoints subscribed to the verdict events, and whether one answered a test event with 2xx",
    params: accountParams,
    responses: { 200: { description: 'The readiness', schema: WebhookReadinessSchema } },
  },

  // webhooks: the dashboard's webhooks pages (issue 41). Every route is the account's: another account's
  // endpoint or delivery is 404. Each runs the same use case as the public route of the same name.
  {
    operationId: 'listAccountWebhookEndpoints',
    method: 'get',
    path: '/internal/accounts/{id}/webhook-endpoints',
    service: 'webhooks',
    summary: "An account's endpoints, newest first, with each one's circuit (never a secret)",
    params: accountParams,
    query: PaginationQuerySchema,
    responses: { 200: { description: 'A page of endpoints', schema: AccountWebhookEndpointListSchema } },
  },
  {
    operationId: 'createAccountWebhookEndpoint',
    method: 'post',
    path: '/internal/accounts/{id}/webhook-endpoints',
    service: 'webhooks',
    summary: 'Register an endpoint; the secret is in this answer only',
    params: accountParams,
    body: CreateWebhookEndpointBodySchema,
    responses: {
      201: { description: 'Created, with its secret', schema: AccountWebhookEndpointWithSecretSchema },
      422: { description: 'A field the API refuses (`validation_failed`, with the field in `errors`)' },
    },
  },
  {
    operationId: 'getAccountWebhookEndpoint',
    method: 'get',
    path: '/internal/accounts/{id}/webhook-endpoints/{endpoint_id}',
    service: 'webhooks',
    summary: 'One endpoint with its circuit, what waits for it and the overlap of a rotation',
    params: webhookEndpointParams,
    responses: {
      200: { description: 'The endpoint', schema: AccountWebhookEndpointSchema },
      404: { description: 'No such endpoint of this account' },
    },
  },
  {
    operationId: 'updateAccountWebhookEndpoint',
    method: 'put',
    path: '/internal/accounts/{id}/webhook-endpoints/{endpoint_id}',
    service: 'webhooks',
    summary: 'Replace the fields sent (url, description, events, status); a url change closes the circuit',
    params: webhookEndpointParams,
    body: UpdateWebhookEndpointBodySchema,
    responses: {
      200: { description: 'The endpoint', schema: AccountWebhookEndpointSchema },
      404: { description: 'No such endpoint of this account' },
      422: { description: 'A field the API refuses (`validation_failed`)' },
    },
  },
  {
    operationId: 'deleteAccountWebhookEndpoint',
    method: 'delete',
    path: '/internal/accounts/{id}/webhook-endpoints/{endpoint_id}',
    service: 'webhooks',
    summary: 'Delete an endpoint (its log stays; what waited for it is dropped)',
    params: webhookEndpointParams,
    responses: {
      200: { description: 'Deleted', schema: DeletedWebhookEndpointSchema },
      404: { description: 'No such endpoint of this account' },
    },
  },
  {
    operationId: 'rotateAccountWebhookEndpointSecret',
    method: 'post',
    path: '/internal/accounts/{id}/webhook-endpoints/{endpoint_id}/rotate-secret',
    service: 'webhooks',
    summary: 'A new secret, in this answer only; the previous one signs too until `state.previous_secret_expires_at`',
    params: webhookEndpointParams,
    responses: {
      200: { description: 'The endpoint with its new secret', schema: AccountWebhookEndpointWithSecretSchema },
      404: { description: 'No such endpoint of this account' },
    },
  },
  {
    operationId: 'testAccountWebhookEndpoint',
    method: 'post',
    path: '/internal/accounts/{id}/webhook-endpoints/{endpoint_id}/test',
    service: 'webhooks',
    summary: 'Send one `test` event (shares the quota of 10 per minute with redeliver)',
    params: webhookEndpointParams,
    responses: {
      200: { description: 'Queued (sent within seconds; the attempt is in the log)', schema: QueuedSchema },
      404: { description: 'No such endpoint of this account' },
      429: { description: 'Test and redeliver above 10 per minute (`rate_limited`, Retry-After)' },
    },
  },
  {
    operationId: 'listAccountWebhookDeliveries',
    method: 'get',
    path: '/internal/accounts/{id}/webhook-endpoints/{endpoint_id}/deliveries',
    service: 'webhooks',
    summary: "An endpoint's delivery log, newest first, by status, event type, session and time",
    params: webhookEndpointParams,
    query: WebhookDeliveryLogQuerySchema,
    responses: {
      200: { description: 'A page of attempts', schema: WebhookDeliveryLogSchema },
      404: { description: 'No such endpoint of this account (a deleted one still lists)' },
      422: { description: 'A filter or cursor that is not one (`validation_failed`, `invalid_cursor`)' },
    },
  },
  {
    operationId: 'getAccountWebhookDelivery',
    method: 'get',
    path: '/internal/accounts/{id}/webhook-deliveries/{delivery_id}',
    service: 'webhooks',
    summary: 'One attempt: the request as sent (signature included) and the response (first 4 KB of the body)',
    params: webhookDeliveryParams,
    responses: {
      200: { description: 'The attempt', schema: WebhookDeliveryAttemptSchema },
      404: { description: 'No such attempt of this account' },
    },
  },
  {
    operationId: 'redeliverAccountWebhookDelivery',
    method: 'post',
    path: '/internal/accounts/{id}/webhook-deliveries/{delivery_id}/redeliver',
    service: 'webhooks',
    summary: "That attempt's event to its endpoint again, once (shares the quota with test)",
    params: webhookDeliveryParams,
    responses: {
      200: { description: 'Queued (sent within seconds; the attempt is in the log)', schema: QueuedSchema },
      404: { description: 'No such attempt of this account, or its endpoint was deleted' },
      429: { description: 'Test and redeliver above 10 per minute (`rate_limited`, Retry-After)' },
    },
  },
  {
    operationId: 'startWebhookRetry',
    method: 'post',
    path: '/internal/accounts/{id}/webhook-endpoints/{endpoint_id}/retries',
    service: 'webhooks',
    summary:
      'Send once more, at the service pace, every event of the endpoint whose latest attempt in [from, to) failed and that has not succeeded since',
    params: webhookEndpointParams,
    body: StartWebhookRetryBodySchema,
    responses: {
      201: { description: 'The retry, with how many events it sends', schema: WebhookRetrySchema },
      404: { description: 'No such endpoint of this account' },
      409: { description: 'A retry of this endpoint is still running, or the endpoint is disabled (`conflict`)' },
      422: { description: 'from not before to, or more than 31 days apart (`validation_failed`)' },
    },
  },
  {
    operationId: 'listWebhookRetries',
    method: 'get',
    path: '/internal/accounts/{id}/webhook-endpoints/{endpoint_id}/retries',
    service: 'webhooks',
    summary: "An endpoint's latest retries (at most 5), newest first, each with its progress",
    params: webhookEndpointParams,
    responses: {
      200: { description: 'The retries', schema: WebhookRetryListSchema },
      404: { description: 'No such endpoint of this account' },
    },
  },
  {
    operationId: 'getWebhookRetry',
    method: 'get',
    path: '/internal/accounts/{id}/webhook-retries/{retry_id}',
    service: 'webhooks',
    summary: 'One retry with its progress',
    params: z.object({ id: idSchema('account'), retry_id: idSchema('webhookRetry') }),
    responses: {
      200: { description: 'The retry', schema: WebhookRetrySchema },
      404: { description: 'No such retry of this account' },
    },
  },
  {
    operationId: 'getWebhookEndpointHealth',
    method: 'get',
    path: '/internal/accounts/{id}/webhook-endpoints/{endpoint_id}/health',
    service: 'webhooks',
    summary: "An endpoint's attempts, success rate and p95 latency by hour over 24 h and by day over 7 days",
    params: webhookEndpointParams,
    responses: {
      200: { description: 'The health', schema: WebhookHealthSchema },
      404: { description: 'No such endpoint of this account' },
    },
  },
  {
    operationId: 'listSessionWebhookDeliveries',
    method: 'get',
    path: '/internal/accounts/{id}/sessions/{sessionId}/webhook-deliveries',
    service: 'webhooks',
    summary: "Every delivery attempt of a session's events to any endpoint, oldest first, at most 500 (a session's timeline)",
    params: accountSessionParams,
    responses: { 200: { description: 'The attempts', schema: SessionWebhookDeliveriesSchema } },
  },

  // dashboard: the operator CLI (the demo account's owner).
  {
    operationId: 'createAccountOwner',
    method: 'post',
    path: '/internal/accounts/{id}/owners',
    service: 'dashboard',
    summary: 'Add an owner who signs in to the dashboard to an existing account (e-mail taken as confirmed)',
    params: accountParams,
    body: CreateAccountOwnerBodySchema,
    responses: {
      201: { description: 'Created', schema: DashboardUserSchema },
      404: { description: 'No such account' },
      409: { description: 'A dashboard user already has this e-mail' },
      422: { description: 'The password breaks the rules' },
    },
  },
  {
    operationId: 'createOperator',
    method: 'post',
    path: '/internal/operators',
    service: 'dashboard',
    summary: 'Create an operator of the service (the operator console; TOTP enrolled at the first sign-in)',
    body: CreateOperatorBodySchema,
    responses: {
      201: { description: 'Created', schema: OperatorSchema },
      409: { description: 'An operator already has this e-mail' },
      422: { description: 'The password breaks the rules' },
    },
  },
] as const satisfies readonly InternalRoute[];

export const INTERNAL_ROUTES: readonly InternalRoute[] = INTERNAL_ROUTE_ENTRIES;

export type InternalRouteEntry = (typeof INTERNAL_ROUTE_ENTRIES)[number];
export type InternalOperationId = InternalRouteEntry['operationId'];

/** The contract entry of an internal operation, with its schemas' types kept. */
export function internalRoute<Id extends InternalOperationId>(operationId: Id): Extract<InternalRouteEntry, { operationId: Id }> {
  const found = INTERNAL_ROUTE_ENTRIES.find((route) => route.operationId === operationId);
  if (!found) throw new Error(`no internal route ${operationId}`);
  return found as Extract<InternalRouteEntry, { operationId: Id }>;
}

/**
 * A concrete path of a contract entry: `contractPath(route, { id })` fills `{id}`, each value
 * percent-encoded. What the internal clients call, so a path is written once.
 */
export function contractPath(route: Pick<RouteContract, 'path'>, params: Record<string, string> = {}): string {
  return route.path.replace(/\{([A-Za-z_]+)\}/g, (_whole, name: string) => {
    const value = params[name];
    if (value === undefined) throw new RangeError(`${route.path}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
}
