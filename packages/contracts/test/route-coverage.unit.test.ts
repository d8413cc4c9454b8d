import path from 'node:path';
import { INTERNAL_ROUTES, PUBLIC_ROUTES, type RouteContract } from '../src';

/**
 * Every contract entry is served by exactly one service, the one it names, and no service serves a
 * route without an entry: each service's app exports the entries it mounts with the kit's `route()`
 * (`mountedRoutes`), and this test reads those lists from the apps' sources. Loading an app module
 * starts nothing (createApp has no side effects at import), so this needs no stack.
 */
const SERVICES = ['keys', 'sessions', 'webhooks', 'gateway', 'flow-runner', 'dashboard'] as const;
type Service = (typeof SERVICES)[number];

const ALL_ENTRIES: readonly RouteContract[] = [...PUBLIC_ROUTES, ...INTERNAL_ROUTES];
const keyOf = (route: Pick<RouteContract, 'method' | 'path'>) => `${route.method.toUpperCase()} ${route.path}`;

async function mountedBy(service: Service): Promise<readonly RouteContract[] | undefined> {
  const file = path.join(__dirname, '..', '..', '..', 'services', service, 'src', 'app');
  const app = (await import(file)) as { mountedRoutes?: readonly RouteContract[] };
  return app.mountedRoutes;
}

describe('routes bound to the contracts', () => {
  let mounted: Map<Service, readonly RouteContract[] | undefined>;

  beforeAll(async () => {
    mounted = new Map(await Promise.all(SERVICES.map(async (service) => [service, await mountedBy(service)] as const)));
  }, 60_000);

  it('when the two tables are read, then operationIds are unique and no two entries of one service share a method and path', () => {
    const ids = ALL_ENTRIES.map((route) => route.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const keys = ALL_ENTRIES.map((route) => `${route.service} ${keyOf(route)}`);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
  });

  it('when every service lists what it mounts, then each contract entry is mounted exactly once, by the service it names', () => {
    const mounters = new Map<string, string[]>(ALL_ENTRIES.map((route) => [route.operationId, []]));
    for (const [service, routes] of mounted) {
      for (const route of routes ?? []) mounters.get(route.operationId)?.push(service);
    }
    const wrong = ALL_ENTRIES.filter((route) => {
      const by = mounters.get(route.operationId)!;
      return by.length !== 1 || by[0] !== route.service;
    }).map((route) => ({ operationId: route.operationId, owner: route.service, mountedBy: mounters.get(route.operationId) }));
    expect(wrong).toEqual([]);
  });

  it('when a service mounts a route, then a contract entry of that operation has its method and path', () => {
    // The apps load the contracts' build and this test its source: entries are compared by what they say.
    const entries = new Set(ALL_ENTRIES.map((route) => `${route.operationId} ${keyOf(route)}`));
    const strays = [...mounted].flatMap(([service, routes]) =>
      (routes ?? [])
        .filter((route) => !entries.has(`${route.operationId} ${keyOf(route)}`))
        .map((route) => `${service}: ${route.operationId} ${keyOf(route)}`),
    );
    expect(strays).toEqual([]);
  });

  it('when the apps are read, then every service exports the routes it mounts', () => {
    expect(SERVICES.filter((service) => mounted.get(service) === undefined)).toEqual([]);
  });
});
