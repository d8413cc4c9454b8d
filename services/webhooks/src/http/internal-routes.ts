import { internalRoute } from '@idv/contracts';
import { route, type Pool } from '@idv/kit';
import { webhookReadiness } from '../adapters/readiness.repository';

/** Internal operations (INTERNAL_ROUTES) of the webhooks service: the dashboard's go-live checklist. */
export const webhooksInternalRoutes = [
  route(internalRoute('getWebhookReadiness'), async ({ params }, { pool }: { pool: Pool }) => {
    const readiness = await webhookReadiness(pool, params.id);
    return {
      status: 200,
      body: {
        account_id: params.id,
        verdict_endpoints: readiness.verdictEndpoints,
        verdict_endpoint_answered_test: readiness.answeredTest,
      },
    };
  }),
];
