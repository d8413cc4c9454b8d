import { PUBLIC_ROUTES, type PublicRoute } from './routes';

export interface CompiledRoute {
  route: PublicRoute;
  pattern: RegExp;
}

export type RouteMatch =
  | { kind: 'found'; route: PublicRoute }
  /** `path`: the contract template of the path, for a 405 labelled like the route's other answers. */
  | { kind: 'method_not_allowed'; allowed: string[]; path: string }
  | { kind: 'not_found' };

function compile(path: string): RegExp {
  const source = path
    .split(/(\{[a-z_]+\})/)
    .map((part) => (/^\{[a-z_]+\}$/.test(part) ? '([^/]+?)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

/** Matches a request against the contract's route table: the gateway routes nothing else. */
export class RouteTable {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly PublicRoute[] = PUBLIC_ROUTES) {
    this.compiled = routes.map((route) => ({ route, pattern: compile(route.path) }));
  }

  get routes(): readonly PublicRoute[] {
    return this.compiled.map((c) => c.route);
  }

  match(method: string, path: string): RouteMatch {
    const candidates = this.compiled.filter((c) => c.pattern.test(path));
    if (candidates.length === 0) return { kind: 'not_found' };
    const lower = method.toLowerCase();
    const found = candidates.find((c) => c.route.method === lower || (lower === 'head' && c.route.method === 'get'));
    if (found) return { kind: 'found', route: found.route };
    return {
      kind: 'method_not_allowed',
      allowed: candidates.map((c) => c.route.method.toUpperCase()),
      path: candidates[0]!.route.path,
    };
  }
}
