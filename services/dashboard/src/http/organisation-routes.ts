import type express from 'express';
import type { Request, Response } from 'express';
import { formFields, textField } from '../domain/forms';
import { newSecret } from '../domain/secrets';
import { createOrganisation, organisationsOf, switchOrganisation } from '../use-cases/organisations';
import type { DashboardPorts } from '../use-cases/ports';
import type { Viewer } from '../use-cases/sign-in';
import { redirect, sendHtml } from './respond';
import { stateOf, type PageTools, type SignedInRoute } from './page-tools';
import { organisationsPage } from './views/organisations';

/** A person's organisations: the list, a switch to another (a new sign-in), another organisation of their own. */
export function mountOrganisationPages(
  router: express.Router,
  ports: DashboardPorts,
  tools: PageTools,
  signedIn: SignedInRoute,
): void {
  const { cookies, csrfToken, post, page, notFound } = tools;

  const view = async (req: Request, res: Response, viewer: Viewer, status = 200, alert?: string) => {
    const { locale, messages } = stateOf(res);
    const organisations = await organisationsOf(ports, viewer);
    const account = organisations.find((organisation) => organisation.current)!.account;
    sendHtml(
      res,
      status,
      organisationsPage({
        locale,
        messages,
        csrfToken: csrfToken(req, res),
        account,
        organisations,
        nonce: newSecret(),
        ...(alert ? { alert } : {}),
      }),
    );
  };

  router.get('/organisations', page(signedIn((req, res, viewer) => view(req, res, viewer))));
  router.post(
    '/organisations/switch',
    ...post(
      signedIn(async (req, res, viewer) => {
        const switched = await switchOrganisation(ports, viewer, formFields(req.body).account_id ?? '', stateOf(res).address);
        if (switched.kind === 'not_found') return notFound(res);
        cookies.set(res, cookies.signIn, switched.cookieValue);
        redirect(res, '/home');
      }),
    ),
  );
  router.post(
    '/organisations',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { messages, address } = stateOf(res);
        const fields = formFields(req.body);
        const name = textField(fields.organisation, 200);
        if (name.problem) return view(req, res, viewer, 422, `${messages.organisation}: ${messages.fieldProblems[name.problem]}`);
        const created = await createOrganisation(ports, viewer, { name: name.value, nonce: fields.nonce ?? '' }, address);
        if (created.kind === 'duplicate') return view(req, res, viewer, 409, messages.organisations.duplicate);
        cookies.set(res, cookies.signIn, created.cookieValue);
        redirect(res, '/home');
      }),
    ),
  );
}
