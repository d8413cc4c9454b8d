import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * What the deployment exposes publicly: the Ingress routes an allow-list of public paths and never
 * `/internal`, `/metrics` or the probes; keys, sessions and webhooks have no public route; the
 * flow-runner's pods take traffic only from the ingress controller and its internal callers; the local
 * compose stack publishes its ports on loopback unless told otherwise.
 */
const ROOT = path.join(__dirname, '..', '..', '..');
const docsOf = (file: string) =>
  parseAllDocuments(readFileSync(path.join(ROOT, file), 'utf8')).map((doc) => doc.toJSON() as Record<string, any>);

interface Route {
  host: string;
  path: string;
  pathType: string;
  service: string;
}

const routes: Route[] = docsOf('deploy/k8s/base/ingress.yaml')
  .filter((doc) => doc.kind === 'Ingress')
  .flatMap((ingress) =>
    (ingress.spec.rules as any[]).flatMap((rule) =>
      (rule.http.paths as any[]).map((p) => ({
        host: rule.host,
        path: p.path,
        pathType: p.pathType,
        service: p.backend.service.name,
      })),
    ),
  );

/** Whether an Ingress path of that type would send `requestPath` to its backend. */
function matches(route: Route, requestPath: string): boolean {
  if (route.pathType === 'Exact') return requestPath === route.path;
  const prefix = route.path.replace(/\/+$/, '');
  return prefix === '' || requestPath === prefix || requestPath.startsWith(`${prefix}/`);
}

describe('public exposure of the deployment', () => {
  test('when the ingress is read, then only the gateway, the flow-runner and the dashboard are routed, by their public paths', () => {
    expect(new Set(routes.map((r) => r.service))).toEqual(new Set(['gateway', 'flow-runner', 'dashboard']));
    for (const route of routes) expect(route.pathType).not.toBe('ImplementationSpecific');
    const reachable = (service: string, requestPath: string) =>
      routes.some((r) => r.service === service && matches(r, requestPath));
    for (const requestPath of ['/l/lt_x', '/s/vs_x', '/assets/flow.css', '/evidence/vs_x/art_x', '/favicon.ico']) {
      expect(reachable('flow-runner', requestPath)).toBe(true);
    }
    expect(reachable('gateway', '/v1/verification-sessions')).toBe(true);
    for (const requestPath of [
      '/',
      '/sign-up',
      '/sign-in',
      '/home',
      '/keys',
      '/keys/key_x/revoke',
      '/operator',
      '/assets/dashboard.css',
    ]) {
      expect(reachable('dashboard', requestPath)).toBe(true);
    }
    for (const service of ['gateway', 'flow-runner']) {
      for (const requestPath of ['/internal/evidence-links', '/internal', '/metrics', '/healthz', '/readyz', '/']) {
        expect(reachable(service, requestPath)).toBe(false);
      }
    }
    for (const requestPath of ['/internal/accounts/acc_x/owners', '/internal', '/metrics', '/healthz', '/readyz']) {
      expect(reachable('dashboard', requestPath)).toBe(false);
    }
  });

  test('when the network policies are read, then the flow-runner takes traffic from the ingress controller and its internal callers only', () => {
    const policy = docsOf('deploy/k8s/base/network-policy.yaml').find((doc) => doc.metadata?.name === 'flow-runner')!;
    const peers = (policy.spec.ingress as any[]).flatMap((rule) => rule.from ?? [{ anywhere: true }]);
    expect(peers).not.toContainEqual({ anywhere: true });
    expect(peers).toEqual(
      expect.arrayContaining([
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
        { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'sessions' } } },
        { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'webhooks' } } },
      ]),
    );
  });

  test('when the compose file is read, then published ports bind to loopback by default', () => {
    const [compose] = docsOf('docker-compose.yml');
    for (const [name, service] of Object.entries(compose!.services as Record<string, { ports?: string[] }>)) {
      for (const port of service.ports ?? [])
        expect(`${name} ${port}`).toMatch(/^\S+ (127\.0\.0\.1|\$\{PUBLISH_ADDRESS:-127\.0\.0\.1\}):/);
    }
  });
});
