import { internalRoute } from '@idv/contracts';
import { AppError, route } from '@idv/kit';
import { addOwner } from '../use-cases/accounts';
import { createOperator } from '../use-cases/operators';
import type { DashboardPorts } from '../use-cases/ports';

/** Internal operations (INTERNAL_ROUTES) the dashboard owns: the operator CLI's. */
export const dashboardInternalRoutes = [
  route(internalRoute('createAccountOwner'), async ({ params, body }, ports: DashboardPorts) => {
    const result = await addOwner(ports, params.id, body);
    switch (result.kind) {
      case 'no_account':
        throw new AppError('not_found', `No account ${params.id}.`);
      case 'email_taken':
        throw new AppError('conflict', 'A dashboard user already has this e-mail.');
      case 'weak_password':
        throw new AppError('validation_failed', 'The password breaks the rules.', {
          errors: [{ path: 'password', message: result.problem }],
        });
      case 'created':
        return {
          status: 201,
          body: {
            object: 'dashboard_user' as const,
            id: result.user.id,
            account_id: result.accountId,
            email: result.user.email,
            name: result.user.name,
            role: 'owner' as const,
          },
        };
    }
  }),
  route(internalRoute('createOperator'), async ({ body }, ports: DashboardPorts) => {
    const result = await createOperator(ports, body);
    switch (result.kind) {
      case 'email_taken':
        throw new AppError('conflict', 'An operator already has this e-mail.');
      case 'weak_password':
        throw new AppError('validation_failed', 'The password breaks the rules.', {
          errors: [{ path: 'password', message: result.problem }],
        });
      case 'created':
        return {
          status: 201,
          body: { object: 'operator' as const, id: result.operator.id, email: result.operator.email, name: result.operator.name },
        };
    }
  }),
];
