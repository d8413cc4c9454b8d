/**
 * The `route` label of `http_request_duration_seconds`: the template a request was made against, the
 * same for every status it can end with. A contract route is labelled by its contract path
 * (`/v1/verification-sessions/{id}`), whichever layer answered: the handler, the 401 of the identity
 * check, the 415/400 of the body parser before any route ran, or the 404 of a handler. Matching the
 * path here, rather than reading what express dispatched, is what keeps errors raised before the route
 * under the route's template.
 */
interface Template {
  method: string | null;
  label: string;
  pattern: RegExp;
  /** Fewer parameters first: `/internal/sessions/activity` wins over `/internal/sessions/{id}`. */
  parameters: number;
}

function compile(template: string): RegExp {
  const source = template
    .split(/(\{[A-Za-z_]+\}|:[A-Za-z_]+)/)
    .map((part) => (/^(\{[A-Za-z_]+\}|:[A-Za-z_]+)$/.test(part) ? '[^/]+?' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

export class RouteTemplates {
  private readonly templates: Template[] = [];

  /** A template in OpenAPI (`{id}`) or express (`:id`) syntax; the label is the template as given. */
  add(template: string, method: string | null = null): void {
    if (this.templates.some((t) => t.label === template && t.method === method)) return;
    const parameters = (template.match(/\{[A-Za-z_]+\}|:[A-Za-z_]+/g) ?? []).length;
    this.templates.push({ method: method?.toUpperCase() ?? null, label: template, pattern: compile(template), parameters });
    this.templates.sort((a, b) => a.parameters - b.parameters);
  }

  /**
   * The template of a path: one of the method's own first, else any template of the path (a 405, a
   * preflight: still a request against that route); undefined for a path no template covers.
   */
  match(method: string, path: string): string | undefined {
    const upper = method === 'HEAD' ? 'GET' : method.toUpperCase();
    let other: string | undefined;
    for (const template of this.templates) {
      if (!template.pattern.test(path)) continue;
      if (template.method === null || template.method === upper) return template.label;
      other ??= template.label;
    }
    return other;
  }
}

/** The templates mounted on each express app or router by `mountRoutes`. */
const mounted = new WeakMap<object, RouteTemplates>();

export function routeTemplatesOf(target: object): RouteTemplates {
  let templates = mounted.get(target);
  if (!templates) {
    templates = new RouteTemplates();
    mounted.set(target, templates);
  }
  return templates;
}
