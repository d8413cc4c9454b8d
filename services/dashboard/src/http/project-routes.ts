import type { Mode, ProjectOverview } from '@idv/contracts';
import type express from 'express';
import type { Request, Response } from 'express';
import { EDITOR_MESSAGES } from '../domain/editor-messages';
import { applyEdit, configFromFields, editableConfig } from '../domain/flow-editor';
import { problemsOf } from '../domain/flow-problems';
import { formFields } from '../domain/forms';
import { can } from '../domain/roles';
import { newSecret } from '../domain/secrets';
import type { DashboardPorts } from '../use-cases/ports';
import {
  checkDraft,
  compareVersions,
  createProject,
  draftOf,
  historyOf,
  listProjects,
  projectOf,
  publish,
  renameProject,
  saveDraft,
  tryDraft,
  tryOf,
  type PublishResult,
} from '../use-cases/projects';
import type { Viewer } from '../use-cases/sign-in';
import { readableJson } from '../domain/diff';
import { redirect, sendHtml } from './respond';
import { stateOf, type PageTools, type SignedInRoute } from './page-tools';
import { editorPage } from './views/flow-editor';
import { diffPage, historyPage, projectPage, projectsPage, publishPreviewPage, tryPage } from './views/projects';
import { qrSvg } from './qr';

const queryText = (req: Request, name: string): string => {
  const value = req.query[name];
  return typeof value === 'string' ? value : '';
};

const modeOf = (value: string | undefined): Mode | null => (value === 'test' || value === 'live' ? value : null);

/** A project's or version's name as typed: trimmed, 1–200 characters, no control characters. */
function nameOf(value: string | undefined): string | null {
  const name = (value ?? '').trim();
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return name && [...name].length <= 200 && !/[\u0000-\u001f\u007f]/.test(name) ? name : null;
}

/**
 * Projects and their flows: the list, a new project, the draft (saved as it is, checked by the publication's
 * schema), publication to test or live after a diff against what that mode points to, the history of
 * versions, a diff of any two, and a pointer moved back (a new publication of an earlier version).
 */
export function mountProjectPages(
  router: express.Router,
  ports: DashboardPorts,
  tools: PageTools,
  signedIn: SignedInRoute,
): void {
  const { csrfToken, post, page, forbidden, notFound } = tools;
  const accountOf = (viewer: Viewer) => ports.platform.call('getAccount', { id: viewer.accountId });

  const listView = async (req: Request, res: Response, viewer: Viewer, status = 200, alert?: string) => {
    const { locale, messages } = stateOf(res);
    const listed = await listProjects(ports, viewer);
    if (listed.kind !== 'projects') return forbidden(res);
    sendHtml(
      res,
      status,
      projectsPage({
        locale,
        messages,
        csrfToken: csrfToken(req, res),
        account: await accountOf(viewer),
        projects: listed.projects,
        canWrite: can(viewer.role, 'projects.write'),
        nonce: newSecret(),
        ...(alert ? { alert } : {}),
      }),
    );
  };

  /** What a page shows besides the stored state; `project` when the caller just read it (no second look-up). */
  type Flash = { status?: number; notice?: string; alert?: string; draft?: string; project?: ProjectOverview };
  type View = 'editor' | 'json';

  /** The project's draft in the editor (`editor`) or as its JSON text (`json`). */
  const projectView = async (req: Request, res: Response, viewer: Viewer, flash: Flash = {}, view: View = 'json') => {
    const { locale, messages } = stateOf(res);
    const found = flash.project
      ? { kind: 'project' as const, project: flash.project }
      : await projectOf(ports, viewer, String(req.params.id));
    if (found.kind === 'forbidden') return forbidden(res);
    if (found.kind === 'not_found') return notFound(res);
    const draft = flash.draft ?? (await draftOf(ports, found.project));
    const common = {
      locale,
      messages,
      csrfToken: csrfToken(req, res),
      account: await accountOf(viewer),
      project: found.project,
      canWrite: can(viewer.role, 'projects.write'),
      nonce: newSecret(),
      ...(flash.notice ? { notice: flash.notice } : {}),
      ...(flash.alert ? { alert: flash.alert } : {}),
    };
    if (view === 'editor') {
      const config = editableConfig(draft);
      return sendHtml(
        res,
        flash.status ?? 200,
        editorPage({
          ...common,
          editor: EDITOR_MESSAGES[locale],
          config,
          problems: config ? problemsOf(config) : new Map(),
        }),
      );
    }
    sendHtml(
      res,
      flash.status ?? 200,
      projectPage({ ...common, draft, problems: checkDraft(draft).problems, editorTab: EDITOR_MESSAGES[locale].formView }),
    );
  };

  /** What a publication step answers: the preview, the result, or why not. */
  const answerPublish = async (
    req: Request,
    res: Response,
    viewer: Viewer,
    result: PublishResult,
    source: string,
    view: View = 'json',
  ) => {
    const { locale, messages } = stateOf(res);
    const p = messages.projects;
    switch (result.kind) {
      case 'forbidden':
        return forbidden(res);
      case 'not_found':
        return notFound(res);
      case 'invalid':
        return projectView(req, res, viewer, { status: 422 }, view);
      case 'live_needs_active_account':
        return projectView(req, res, viewer, { status: 422, alert: p.liveNeedsActive }, view);
      case 'stale':
      case 'preview': {
        const plan =
          result.kind === 'preview'
            ? result.plan
            : await publish(
                ports,
                viewer,
                String(req.params.id),
                { mode: modeOf(formFields(req.body).mode)!, source: sourceOf(source) },
                '',
              ).then((again) => (again.kind === 'preview' ? again.plan : null));
        if (!plan) return projectView(req, res, viewer, { status: 409, alert: p.stale }, view);
        return sendHtml(
          res,
          result.kind === 'stale' ? 409 : 200,
          publishPreviewPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            account: await accountOf(viewer),
            project: plan.project,
            mode: plan.mode,
            diff: plan.diff,
            currentVersion: plan.currentVersion,
            source,
            ...(result.kind === 'stale' ? { alert: p.stale } : {}),
          }),
        );
      }
      case 'published':
        return redirect(res, `/projects/${String(req.params.id)}?published=${result.version}&mode=${formFields(req.body).mode}`);
    }
  };

  const sourceOf = (source: string): { draft: true } | { version: string } =>
    source === 'draft' ? { draft: true } : { version: source };

  router.get('/projects', page(signedIn((req, res, viewer) => listView(req, res, viewer))));
  router.post(
    '/projects',
    ...post(
      signedIn(async (req, res, viewer) => {
        const fields = formFields(req.body);
        const name = nameOf(fields.name);
        const { messages, address } = stateOf(res);
        if (!can(viewer.role, 'projects.write')) return forbidden(res);
        if (!name) return listView(req, res, viewer, 422, `${messages.projects.name}: ${messages.fieldProblems.required}`);
        const result = await createProject(ports, viewer, { name, nonce: fields.nonce ?? '' }, address);
        if (result.kind === 'forbidden' || result.kind === 'not_found') return forbidden(res);
        if (result.kind === 'duplicate') return listView(req, res, viewer, 409, messages.projects.duplicate);
        redirect(res, `/projects/${result.projectId}`);
      }),
    ),
  );
  router.get(
    '/projects/:id',
    page(
      signedIn(async (req, res, viewer) => {
        const { messages } = stateOf(res);
        const version = typeof req.query.published === 'string' ? req.query.published : null;
        const mode = modeOf(typeof req.query.mode === 'string' ? req.query.mode : undefined);
        const notice = version && mode ? messages.projects.published(version, messages.keys.modes[mode]) : undefined;
        await projectView(req, res, viewer, notice ? { notice } : {}, 'editor');
      }),
    ),
  );
  /** Saves the draft's text; null when the viewer may not (the refusal is answered). */
  const saveOrRefuse = async (req: Request, res: Response, viewer: Viewer, text: string) => {
    const saved = await saveDraft(ports, viewer, String(req.params.id), text);
    if (saved.kind === 'forbidden') return (forbidden(res), null);
    if (saved.kind === 'not_found') return (notFound(res), null);
    return saved;
  };

  /** Saves the draft's text, then shows it again, tries it or goes on to publish it (`then`). */
  const saveThen = async (req: Request, res: Response, viewer: Viewer, text: string, then: string | undefined, view: View) => {
    const { messages, address } = stateOf(res);
    const saved = await saveOrRefuse(req, res, viewer, text);
    if (!saved) return;
    if (then === 'try' && !saved.problems.length) {
      const nonce = formFields(req.body).nonce ?? '';
      const tried = await tryDraft(ports, viewer, saved.project, saved.config, nonce, address);
      if (tried.kind === 'tried') return redirect(res, `/projects/${saved.project.id}/tries/${tried.sessionId}`);
      if (tried.kind === 'forbidden' || tried.kind === 'not_found') return forbidden(res);
      const t = messages.projects.tries;
      const refusal = { too_many: [429, t.tooMany], suspended: [422, t.suspended], duplicate: [409, t.duplicate] } as const;
      const [status, alert] = refusal[tried.kind];
      return projectView(req, res, viewer, { status, draft: text, alert, project: saved.project }, view);
    }
    const mode = then === 'publish_test' ? 'test' : then === 'publish_live' ? 'live' : null;
    if (!mode || saved.problems.length) {
      return projectView(
        req,
        res,
        viewer,
        {
          status: saved.problems.length ? 422 : 200,
          draft: text,
          project: saved.project,
          notice: `${messages.projects.saved}${saved.problems.length ? '' : ` ${messages.projects.valid}`}`,
        },
        view,
      );
    }
    const result = await publish(ports, viewer, String(req.params.id), { mode, source: { draft: true } }, address);
    req.body = { ...(req.body as object), mode };
    await answerPublish(req, res, viewer, result, 'draft', view);
  };

  router.get('/projects/:id/json', page(signedIn((req, res, viewer) => projectView(req, res, viewer, {}, 'json'))));
  router.post(
    '/projects/:id/draft',
    ...post(
      signedIn(async (req, res, viewer) => {
        const fields = formFields(req.body);
        const text = fields.config ?? '';
        // The editor's script saves as you type: it wants to know the draft was kept, not a page.
        if (req.get('x-autosave') === '1') {
          const saved = await saveOrRefuse(req, res, viewer, text);
          if (saved) res.status(200).json({ saved: true, problems: saved.problems });
          return;
        }
        await saveThen(req, res, viewer, text, fields.then, 'json');
      }),
    ),
  );
  router.post(
    '/projects/:id/editor',
    ...post(
      signedIn(async (req, res, viewer) => {
        const fields = formFields(req.body);
        const config = configFromFields(Object.entries(fields));
        if (fields.op) {
          const edited = applyEdit(config, fields.op);
          const text = readableJson(edited ?? config);
          const saved = await saveOrRefuse(req, res, viewer, text);
          if (!saved) return;
          const stale = { status: 422, alert: EDITOR_MESSAGES[stateOf(res).locale].staleButton };
          return projectView(req, res, viewer, { draft: text, project: saved.project, ...(edited ? {} : stale) }, 'editor');
        }
        await saveThen(req, res, viewer, readableJson(config), fields.then, 'editor');
      }),
    ),
  );
  router.post(
    '/projects/:id/publish',
    ...post(
      signedIn(async (req, res, viewer) => {
        const fields = formFields(req.body);
        const mode = modeOf(fields.mode);
        const source = fields.source === 'draft' || /^cfg_\d{8}$/.test(fields.source ?? '') ? fields.source! : null;
        if (!mode || !source) return projectView(req, res, viewer, { status: 422 }, 'editor');
        const against = fields.against === undefined ? undefined : fields.against === 'none' ? null : fields.against;
        const result = await publish(
          ports,
          viewer,
          String(req.params.id),
          { mode, source: sourceOf(source), ...(against !== undefined ? { confirmAgainst: against } : {}) },
          stateOf(res).address,
        );
        await answerPublish(req, res, viewer, result, source, 'editor');
      }),
    ),
  );
  router.get(
    '/projects/:id/tries/:sessionId',
    page(
      signedIn(async (req, res, viewer) => {
        const { locale, messages } = stateOf(res);
        const found = await tryOf(ports, viewer, String(req.params.id), String(req.params.sessionId));
        if (found.kind === 'forbidden') return forbidden(res);
        if (found.kind === 'not_found') return notFound(res);
        const { session } = found;
        sendHtml(
          res,
          200,
          tryPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            account: await accountOf(viewer),
            project: found.project,
            session,
            qrSvg: session.url ? await qrSvg(session.url) : null,
          }),
        );
      }),
    ),
  );
  router.post(
    '/projects/:id/name',
    ...post(
      signedIn(async (req, res, viewer) => {
        const name = nameOf(formFields(req.body).name);
        const { messages, address } = stateOf(res);
        if (!name)
          return projectView(
            req,
            res,
            viewer,
            { status: 422, alert: `${messages.projects.name}: ${messages.fieldProblems.required}` },
            'editor',
          );
        const result = await renameProject(ports, viewer, String(req.params.id), name, address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return notFound(res);
        redirect(res, `/projects/${String(req.params.id)}`);
      }),
    ),
  );
  router.get(
    '/projects/:id/history',
    page(
      signedIn(async (req, res, viewer) => {
        const { locale, messages } = stateOf(res);
        const found = await historyOf(ports, viewer, String(req.params.id));
        if (found.kind === 'forbidden') return forbidden(res);
        if (found.kind === 'not_found') return notFound(res);
        sendHtml(
          res,
          200,
          historyPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            account: await accountOf(viewer),
            project: found.project,
            entries: found.entries,
            canWrite: can(viewer.role, 'projects.write'),
          }),
        );
      }),
    ),
  );
  router.get(
    '/projects/:id/diff',
    page(
      signedIn(async (req, res, viewer) => {
        const { locale, messages } = stateOf(res);
        const found = await compareVersions(ports, viewer, String(req.params.id), queryText(req, 'from'), queryText(req, 'to'));
        if (found.kind === 'forbidden') return forbidden(res);
        if (found.kind === 'not_found') return notFound(res);
        sendHtml(
          res,
          200,
          diffPage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            account: await accountOf(viewer),
            project: found.project,
            from: found.from,
            to: found.to,
            diff: found.diff,
          }),
        );
      }),
    ),
  );
}
