#!/usr/bin/env node
// Validates the deployment files offline, with no cluster and no Docker daemon. deploy/k8s/base is the shared
// base, deploy/k8s/overlays/* the environments: each overlay is rendered with `kubectl kustomize` and every check
// below runs on what it renders (what would be applied):
//  - every manifest against the Kubernetes schemas (kubernetes-models, by apiVersion/kind);
//  - the release: every image pinned by a `<version>-<commit>` tag (digest optional), one tag per overlay, never
//    `latest` (nor anywhere in deploy/k8s), `IfNotPresent` only with such immutable references; the migrate Job
//    named `migrate-<tag>`, one container per service with a schema running its `dist/migrate.js` with the
//    service's own image, and MIGRATE_ON_START 'false' in those services' ConfigMaps;
//  - HorizontalPodAutoscalers (autoscaling/v2) for the gateway, sessions, webhooks (CPU) and the flow-runner
//    (CPU and the External verification_jobs_queued), bounds that keep a PodDisruptionBudget satisfiable, and no
//    `replicas` on a Deployment an HPA scales;
//  - with deploy/k8s/secrets.example.yaml, every secretKeyRef and envFrom secretRef (optional ones too, when
//    their Secret is in the example) names a Secret and a key of the example, and deploy/k8s/README.md's
//    `kubectl create secret` commands name every key of every example Secret;
//  - the gateway keeps idle connections open longer than a load balancer's 60 s idle timeout;
//  - every Deployment: readiness (/readyz) and liveness (/healthz) probes, requests and limits, a grace period
//    of at least 30 s, a preStop hook, a non-root security context, Prometheus annotations, a Service that
//    selects it, a ConfigMap it reads and a PodDisruptionBudget that lets a node drain, all present;
//  - each Ingress's body size and timeouts cover what its service accepts (read from the built code and the
//    flow-runner's ConfigMap), one Ingress per service; no Ingress routes /internal, /metrics or the probes,
//    and every page of the dashboard's router is routed;
//    each public service's host is that of its base URL, with TLS; the gateway's CORS_ORIGINS is the
//    dashboard's origin (here and in compose);
//  - the network policies let every service reach the services it calls (CALLS), the ingress controller reach
//    the public services and the operator pods reach the internal routes of the CLI (both sides: egress of
//    the caller, ingress of the callee);
//  - base/kustomization.yaml lists files that exist and every manifest of the base;
//  - compose builds each service from a Dockerfile that exists, is multi-stage, runs as `node` and starts
//    dist/main.js (one parameterised Dockerfile with SERVICE and PORT build arguments serves all of them), on
//    a Node LTS (22 or 24) base image pinned to a release;
//    its gateway's CORS_ORIGINS allows its dashboard's origin;
//  - docker-compose.yml with `docker-compose config -q` (Debian's docker-compose 1.29) when available.
// Exits 1 and prints every problem found.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { RELEASE_TAG } from './release-images.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const K8S_DIR = path.join(ROOT, 'deploy', 'k8s');
const BASE_DIR = path.join(K8S_DIR, 'base');
const OVERLAYS_DIR = path.join(K8S_DIR, 'overlays');
const SECRETS_EXAMPLE = path.join(K8S_DIR, 'secrets.example.yaml');
/** The services a HorizontalPodAutoscaler scales, and the metrics each must use besides CPU. */
const AUTOSCALED = { gateway: [], sessions: [], webhooks: [], 'flow-runner': ['verification_jobs_queued'] };
/** A load balancer's usual idle timeout (AWS ALB, GCP, ingress-nginx's upstream keep-alive): the gateway's keep-alive exceeds it. */
const LOAD_BALANCER_IDLE_TIMEOUT_MS = 60_000;
const SERVICES = { gateway: 8080, keys: 8081, sessions: 8082, 'flow-runner': 8083, webhooks: 8084, dashboard: 8085 };
const MIN_GRACE_SECONDS = 30;
/** Who calls whom inside the cluster (each caller's ConfigMap names the callee's URL). */
const CALLS = {
  gateway: ['keys', 'sessions', 'webhooks'],
  'flow-runner': ['sessions'],
  sessions: ['flow-runner'],
  webhooks: ['flow-runner'],
  dashboard: ['keys', 'sessions', 'webhooks'],
};
/** The operator CLI (pods labelled `app.kubernetes.io/name: ops`): the services whose internal routes it calls. */
const OPS_CALLS = ['keys', 'sessions', 'dashboard'];
/** The public services: the ConfigMap entry naming each one's public origin (its Ingress host). */
const PUBLIC_BASE_URLS = { gateway: 'PUBLIC_BASE_URL', 'flow-runner': 'FLOW_BASE_URL', dashboard: 'DASHBOARD_BASE_URL' };
/** Paths no Ingress may route: internal routes (INTERNAL_TOKEN), metrics and probes. */
const NEVER_PUBLIC = ['/internal', '/internal/x', '/metrics', '/healthz', '/readyz'];
const INGRESS_NAMESPACE = 'ingress-nginx';
const NAMESPACE = 'idv';

const problems = [];
const notes = [];
const problem = (where, message) => problems.push(`${where}: ${message}`);
const rel = (file) => path.relative(ROOT, file);

function listYaml(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return listYaml(full);
    return /\.ya?ml$/.test(name) ? [full] : [];
  });
}

/** `apps/v1` + `Deployment` → the kubernetes-models class, or null when the package has none. */
async function modelFor(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !/^[A-Za-z0-9.]+(\/[a-z0-9]+)?$/.test(apiVersion))
    return null;
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) return null;
  try {
    const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
    return module[kind] ?? null;
  } catch {
    return null;
  }
}

// ---- 1. parse every file; render each overlay and check what it renders ----
let kustomization = null;
const yamlFiles = listYaml(K8S_DIR);
if (yamlFiles.length === 0) problem('deploy/k8s', 'no manifests found');

for (const file of yamlFiles) {
  const text = readFileSync(file, 'utf8');
  // A moving tag names no release: a rollback or a rescheduled pod could run other code.
  text.split('\n').forEach((line, index) => {
    if (/(:|newTag:\s*['"]?)latest\b/.test(line.replace(/#.*$/, '')))
      problem(`${rel(file)}:${index + 1}`, 'names the `latest` tag: pin a release tag (scripts/release-images.mjs)');
  });
  parseAllDocuments(text).forEach((document, index) => {
    const where = `${rel(file)}#${index + 1}`;
    if (document.errors.length > 0) {
      for (const error of document.errors) problem(where, `YAML: ${error.message}`);
      return;
    }
    const doc = document.toJS();
    if (doc?.kind === 'Kustomization' && file === path.join(BASE_DIR, 'kustomization.yaml')) kustomization = { file, doc };
  });
}

/** The example Secrets (deploy/k8s/secrets.example.yaml): name → its keys. */
const exampleSecrets = new Map();
if (!existsSync(SECRETS_EXAMPLE)) problem(rel(SECRETS_EXAMPLE), 'missing');
else
  for (const doc of parseAllDocuments(readFileSync(SECRETS_EXAMPLE, 'utf8')).map((d) => d.toJS()))
    if (doc?.kind === 'Secret')
      exampleSecrets.set(doc.metadata?.name, new Set(Object.keys({ ...(doc.data ?? {}), ...(doc.stringData ?? {}) })));

const renderedSummary = [];
const kubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const overlays = existsSync(OVERLAYS_DIR)
  ? readdirSync(OVERLAYS_DIR).filter((name) => existsSync(path.join(OVERLAYS_DIR, name, 'kustomization.yaml')))
  : [];
if (overlays.length === 0) problem('deploy/k8s/overlays', 'no overlay (staging, production)');
if (!kubectl) problem('kubectl', 'not found: the overlays are rendered with `kubectl kustomize` (install kubectl)');
else
  for (const overlay of overlays) {
    const rendered = spawnSync('kubectl', ['kustomize', path.join(OVERLAYS_DIR, overlay)], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const label = `overlays/${overlay}`;
    if (rendered.status !== 0) {
      problem(label, `kubectl kustomize: ${(rendered.stderr || rendered.stdout).trim()}`);
      continue;
    }
    const manifests = parseAllDocuments(rendered.stdout)
      .map((document) => document.toJS())
      .filter(Boolean)
      .map((doc, index) => ({ where: `${label}#${index + 1}`, doc }));
    await checkRendered(label, manifests);
    renderedSummary.push(`${overlay} ${manifests.length} manifests`);
  }

/** Every check of one overlay's rendered manifests. */
async function checkRendered(label, manifests) {
  const problem = (where, message) => problems.push(`[${label}] ${where}: ${message}`);
  for (const { where, doc } of manifests) {
    const label = `${where} ${doc.kind ?? '?'}/${doc.metadata?.name ?? '?'}`;
    const Model = await modelFor(doc.apiVersion, doc.kind);
    if (!Model) {
      problem(label, `unknown apiVersion/kind ${doc.apiVersion}/${doc.kind}`);
      continue;
    }
    if (!doc.metadata?.name) problem(label, 'metadata.name is missing');
    try {
      new Model(doc).validate();
    } catch (error) {
      problem(label, `schema: ${error.message}`);
    }
  }

  // ---- 2. Deployment rules ----
  const byKind = (kind) => manifests.filter((m) => m.doc.kind === kind);
  const services = byKind('Service');
  const configMaps = new Set(byKind('ConfigMap').map((m) => m.doc.metadata?.name));
  const matches = (selector, labels) =>
    selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);
  /** A LabelSelector (matchLabels and matchExpressions; `{}` selects everything) against a set of labels. */
  function selects(selector, labels = {}) {
    if (!selector) return false;
    const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
    const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      if (operator === 'In') return key in labels && values.includes(labels[key]);
      if (operator === 'NotIn') return !(key in labels) || !values.includes(labels[key]);
      if (operator === 'Exists') return key in labels;
      if (operator === 'DoesNotExist') return !(key in labels);
      return false;
    });
    return byLabels && byExpressions;
  }

  for (const { where, doc } of byKind('Deployment')) {
    const name = doc.metadata?.name ?? '?';
    const at = `${where} Deployment/${name}`;
    const pod = doc.spec?.template ?? {};
    const podSpec = pod.spec ?? {};
    const podLabels = pod.metadata?.labels ?? {};
    const containers = podSpec.containers ?? [];

    if (!matches(doc.spec?.selector?.matchLabels, podLabels)) problem(at, 'spec.selector does not match the pod template labels');
    const grace = podSpec.terminationGracePeriodSeconds;
    if (typeof grace !== 'number' || grace < MIN_GRACE_SECONDS)
      problem(at, `terminationGracePeriodSeconds must be at least ${MIN_GRACE_SECONDS} (is ${grace ?? 'unset'})`);
    const annotations = pod.metadata?.annotations ?? {};
    if (
      annotations['prometheus.io/scrape'] !== 'true' ||
      !annotations['prometheus.io/port'] ||
      !annotations['prometheus.io/path']
    )
      problem(at, 'pod template lacks prometheus.io/scrape, /port and /path annotations');
    if (podSpec.securityContext?.runAsNonRoot !== true && !containers.every((c) => c.securityContext?.runAsNonRoot === true))
      problem(at, 'runAsNonRoot is not set');
    if (containers.length === 0) problem(at, 'no containers');

    const containerPorts = new Map(); // name or number → number
    for (const container of containers) {
      const c = `${at} container ${container.name}`;
      for (const port of container.ports ?? []) {
        containerPorts.set(String(port.containerPort), port.containerPort);
        if (port.name) containerPorts.set(port.name, port.containerPort);
      }
      const httpPath = (probe) => probe?.httpGet?.path;
      if (!container.readinessProbe) problem(c, 'readinessProbe is missing');
      else if (httpPath(container.readinessProbe) !== '/readyz') problem(c, 'readinessProbe must GET /readyz');
      if (!container.livenessProbe) problem(c, 'livenessProbe is missing');
      else if (httpPath(container.livenessProbe) !== '/healthz') problem(c, 'livenessProbe must GET /healthz');
      for (const kind of ['requests', 'limits'])
        for (const resource of ['cpu', 'memory'])
          if (container.resources?.[kind]?.[resource] === undefined) problem(c, `resources.${kind}.${resource} is missing`);
      if (!container.lifecycle?.preStop) problem(c, 'lifecycle.preStop is missing (endpoints need time to drain)');
      if (container.securityContext?.allowPrivilegeEscalation !== false) problem(c, 'allowPrivilegeEscalation must be false');
      if (container.securityContext?.readOnlyRootFilesystem !== true) notes.push(`${c}: root filesystem is writable`);
      for (const source of container.envFrom ?? []) {
        const ref = source.configMapRef;
        if (ref && !ref.optional && !configMaps.has(ref.name)) problem(c, `envFrom ConfigMap ${ref.name} is not defined`);
      }
      const env = new Map((container.env ?? []).map((e) => [e.name, e]));
      const internal = env.get('INTERNAL_TOKEN');
      if (!internal?.valueFrom?.secretKeyRef) problem(c, 'INTERNAL_TOKEN must come from a Secret (secretKeyRef)');
      for (const [envName, entry] of env)
        if (/_URL$/.test(envName) && typeof entry.value === 'string' && /\/\/[^/@]*:[^/@]*@/.test(entry.value))
          problem(c, `${envName} carries credentials in plain text; use a secretKeyRef`);
    }
    if (!(containers[0]?.envFrom ?? []).some((s) => s.configMapRef)) problem(at, 'reads no ConfigMap (envFrom configMapRef)');

    const budget = byKind('PodDisruptionBudget').find((m) => selects(m.doc.spec?.selector, podLabels));
    if (!budget) problem(at, 'no PodDisruptionBudget selects its pods');
    else {
      const { minAvailable, maxUnavailable } = budget.doc.spec ?? {};
      // A Deployment an HPA scales runs at least the HPA's minReplicas.
      const hpa = byKind('HorizontalPodAutoscaler').find(
        (m) => m.doc.spec?.scaleTargetRef?.kind === 'Deployment' && m.doc.spec?.scaleTargetRef?.name === name,
      );
      const replicas = hpa ? (hpa.doc.spec?.minReplicas ?? 1) : (doc.spec?.replicas ?? 1);
      if (minAvailable === undefined && maxUnavailable === undefined)
        problem(
          `${budget.where} PodDisruptionBudget/${budget.doc.metadata?.name}`,
          'sets neither minAvailable nor maxUnavailable',
        );
      if (typeof minAvailable === 'number' && minAvailable >= replicas)
        problem(
          `${budget.where} PodDisruptionBudget/${budget.doc.metadata?.name}`,
          `minAvailable ${minAvailable} with ${replicas} replicas would block every node drain`,
        );
    }

    const service = services.find((s) => matches(s.doc.spec?.selector, podLabels));
    if (!service) problem(at, 'no Service selects its pods');
    else
      for (const port of service.doc.spec?.ports ?? []) {
        const target = String(port.targetPort ?? port.port);
        if (!containerPorts.has(target))
          problem(
            `${service.where} Service/${service.doc.metadata?.name}`,
            `targetPort ${target} is not a port of Deployment/${name}`,
          );
      }
  }

  for (const name of Object.keys(SERVICES)) {
    if (!byKind('Deployment').some((m) => m.doc.metadata?.name === name)) problem('rendered', `no Deployment for ${name}`);
  }

  /** The data of the ConfigMap a service's Deployment reads. */
  function configMapOf(name) {
    const deployment = byKind('Deployment').find((m) => m.doc.metadata?.name === name)?.doc;
    const refs = (deployment?.spec?.template?.spec?.containers ?? []).flatMap((c) =>
      (c.envFrom ?? []).map((source) => source.configMapRef?.name).filter(Boolean),
    );
    const data = refs.map((ref) => byKind('ConfigMap').find((m) => m.doc.metadata?.name === ref)?.doc.data ?? {});
    return refs.length > 0 ? Object.assign({}, ...data) : undefined;
  }
  /** Whether an Ingress path of that type sends `requestPath` to its backend (Prefix: whole path elements). */
  function ingressRouteMatches(route, requestPath) {
    if (route.pathType === 'Exact') return requestPath === route.path;
    const prefix = String(route.path ?? '').replace(/\/+$/, '');
    return prefix === '' || requestPath === prefix || requestPath.startsWith(`${prefix}/`);
  }

  // ---- 2b. the ingress carries what each service accepts ----
  // ingress-nginx's default body size (1 MiB) would refuse phone photos with its own 413, and its default
  // 60 s timeouts would cut an upload the flow-runner still accepts: each host's annotations are checked
  // against the limits in the services' built code and the flow-runner's ConfigMap.
  const NGINX_SIZE_UNITS = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
  const nginxBytes = (size) => {
    const match = /^(\d+)([kmg]?)$/i.exec(String(size ?? '').trim());
    return match ? Number(match[1]) * NGINX_SIZE_UNITS[match[2].toLowerCase()] : null;
  };
  const kitBodyLimit = nginxBytes(
    (await import(path.join(ROOT, 'packages/kit/dist/http/app.js'))).JSON_BODY_LIMIT.replace(/b$/i, ''),
  );
  const { MULTIPART_LIMIT_BYTES } = await import(path.join(ROOT, 'services/flow-runner/dist/http/multipart.js'));
  const flowRunnerEnv = byKind('ConfigMap').find((m) => m.doc.metadata?.name === 'flow-runner-config')?.doc.data ?? {};
  const flowRequestTimeoutMs = Number(flowRunnerEnv.HTTP_REQUEST_TIMEOUT_MS);
  if (!Number.isFinite(flowRequestTimeoutMs)) problem('base/flow-runner.yaml', 'the ConfigMap must set HTTP_REQUEST_TIMEOUT_MS');
  // The dashboard's forms (urlencoded, FORM_BODY_LIMIT in its pages' router, not exported: read from the built file).
  const dashboardRoutes = path.join(ROOT, 'services/dashboard/dist/http/routes.js');
  const dashboardFormLimit = existsSync(dashboardRoutes)
    ? nginxBytes(/\bFORM_BODY_LIMIT = '(\d+[kmg]?)b?'/i.exec(readFileSync(dashboardRoutes, 'utf8'))?.[1])
    : null;
  if (dashboardFormLimit === null)
    problem(rel(dashboardRoutes), "FORM_BODY_LIMIT = '<n>kb' not found (build the dashboard first)");
  const ingressNeeds = {
    gateway: { bodyBytes: kitBodyLimit, timeoutSeconds: 60 },
    'flow-runner': { bodyBytes: MULTIPART_LIMIT_BYTES, timeoutSeconds: flowRequestTimeoutMs / 1000, unbuffered: true },
    dashboard: { bodyBytes: dashboardFormLimit ?? Infinity, timeoutSeconds: 60 },
  };
  for (const { where, doc } of byKind('Ingress')) {
    const annotations = doc.metadata?.annotations ?? {};
    const backends = new Set(
      (doc.spec?.rules ?? []).flatMap((rule) => (rule.http?.paths ?? []).map((p) => p.backend?.service?.name)),
    );
    for (const backend of backends) {
      const needs = ingressNeeds[backend];
      if (!needs) continue;
      const bodyBytes = nginxBytes(annotations['nginx.ingress.kubernetes.io/proxy-body-size']);
      if (bodyBytes === null || bodyBytes < needs.bodyBytes) {
        problem(
          where,
          `proxy-body-size must be at least ${needs.bodyBytes} bytes for ${backend} (is ${annotations['nginx.ingress.kubernetes.io/proxy-body-size']})`,
        );
      }
      for (const name of ['proxy-read-timeout', 'proxy-send-timeout']) {
        const seconds = Number(annotations[`nginx.ingress.kubernetes.io/${name}`]);
        if (!(seconds >= needs.timeoutSeconds))
          problem(where, `${name} must be at least ${needs.timeoutSeconds} s for ${backend}`);
      }
      if (needs.unbuffered && annotations['nginx.ingress.kubernetes.io/proxy-request-buffering'] !== 'off') {
        problem(where, `proxy-request-buffering must be 'off' for ${backend} (it refuses uploads from their headers)`);
      }
    }
    if ([...backends].filter((backend) => ingressNeeds[backend]).length > 1) {
      problem(where, 'one Ingress per service: its annotations (body size, timeouts) apply to every host of the object');
    }
    // Routes: an allow-list of public paths; never the internal routes, the metrics or the probes.
    const tlsHosts = new Set((doc.spec?.tls ?? []).flatMap((tls) => tls.hosts ?? []));
    for (const rule of doc.spec?.rules ?? []) {
      if (!rule.host) problem(where, 'a rule without a host answers on every host');
      else if (!tlsHosts.has(rule.host)) problem(where, `host ${rule.host} has no TLS`);
      for (const route of rule.http?.paths ?? []) {
        const backend = route.backend?.service?.name;
        if (route.pathType !== 'Exact' && route.pathType !== 'Prefix')
          problem(where, `${rule.host}${route.path}: pathType must be Exact or Prefix (is ${route.pathType})`);
        for (const requestPath of NEVER_PUBLIC)
          if (ingressRouteMatches(route, requestPath))
            problem(where, `${rule.host}${route.path} routes ${requestPath} to ${backend}: it must never be public`);
        const baseUrlName = PUBLIC_BASE_URLS[backend];
        const baseUrl = baseUrlName ? configMapOf(backend)?.[baseUrlName] : undefined;
        if (baseUrlName && !baseUrl) problem(where, `${backend}'s ConfigMap does not set ${baseUrlName}`);
        else if (baseUrl) {
          const url = new URL(baseUrl);
          if (url.protocol !== 'https:' || url.host !== rule.host)
            problem(
              where,
              `host ${rule.host} routes to ${backend}, whose ${baseUrlName} is ${baseUrl} (want https://${rule.host})`,
            );
        }
      }
    }
  }
  // The dashboard's pages are an allow-list too: each route of its pages' router (read from the built router)
  // must be routed to it, or a new page would be the controller's 404.
  const routedTo = (service, requestPath) =>
    byKind('Ingress').some((m) =>
      (m.doc.spec?.rules ?? []).some((rule) =>
        (rule.http?.paths ?? []).some((p) => p.backend?.service?.name === service && ingressRouteMatches(p, requestPath)),
      ),
    );
  try {
    const { dashboardRouter } = createRequire(import.meta.url)(path.join(ROOT, 'services/dashboard/dist/http/routes.js'));
    const quiet = { error() {}, warn() {}, info() {}, debug() {}, child: () => quiet };
    const router = dashboardRouter({}, { secureCookies: true, secret: 'x'.repeat(32), clientAddresses: { of: () => '' } }, quiet);
    const pagePaths = router.stack.filter((layer) => layer.route).map((layer) => String(layer.route.path));
    if (pagePaths.length === 0) problem('services/dashboard/dist/http/routes.js', 'the pages router has no routes');
    for (const pagePath of new Set(pagePaths)) {
      const requestPath = pagePath.replace(/:[A-Za-z0-9_]+/g, 'x');
      if (!routedTo('dashboard', requestPath))
        problem('base/ingress.yaml', `the dashboard's page ${pagePath} is not routed (add it to its Ingress)`);
    }
  } catch (error) {
    problem('services/dashboard/dist/http/routes.js', `could not list the dashboard's pages: ${error.message}`);
  }
  for (const name of Object.keys(PUBLIC_BASE_URLS)) {
    const routed = byKind('Ingress').some((m) =>
      (m.doc.spec?.rules ?? []).some((rule) => (rule.http?.paths ?? []).some((p) => p.backend?.service?.name === name)),
    );
    if (!routed) problem('base/ingress.yaml', `no Ingress routes ${name}`);
  }
  // The gateway lets exactly the dashboard's origin call the API from a browser.
  const dashboardBaseUrl = configMapOf('dashboard')?.DASHBOARD_BASE_URL;
  const gatewayCors = configMapOf('gateway')?.CORS_ORIGINS;
  if (dashboardBaseUrl && gatewayCors !== new URL(dashboardBaseUrl).origin)
    problem(
      'base/gateway.yaml',
      `CORS_ORIGINS must be the dashboard's origin ${new URL(dashboardBaseUrl).origin} (is ${gatewayCors})`,
    );
  if (configMapOf('dashboard')?.SECURE_COOKIES !== 'true')
    problem('base/dashboard.yaml', "SECURE_COOKIES must be 'true' behind the ingress's TLS");

  // ---- 2c. network policies: every call the services make is let through on both sides ----
  const policies = byKind('NetworkPolicy').map((m) => m.doc);
  const namespaceLabels = (name) =>
    byKind('Namespace').find((m) => m.doc.metadata?.name === name)?.doc.metadata?.labels ?? {
      'kubernetes.io/metadata.name': name,
    };
  /** An endpoint: a pod's labels (null: any pod) in a namespace. */
  const endpoint = (namespace, podLabels) => ({
    namespace: { ...namespaceLabels(namespace), 'kubernetes.io/metadata.name': namespace },
    podLabels,
  });
  function peerMatches(peer, target) {
    if (peer.ipBlock) return false; // pods' addresses are not meant to be matched by ipBlocks
    const namespaceOk = peer.namespaceSelector
      ? selects(peer.namespaceSelector, target.namespace)
      : target.namespace['kubernetes.io/metadata.name'] === NAMESPACE;
    if (!namespaceOk) return false;
    if (!peer.podSelector || Object.keys(peer.podSelector).length === 0) return true;
    return target.podLabels !== null && selects(peer.podSelector, target.podLabels);
  }
  const portMatches = (rulePorts, port) =>
    !rulePorts ||
    rulePorts.length === 0 ||
    rulePorts.some(
      (p) => (p.protocol ?? 'TCP') === 'TCP' && (p.port === undefined || p.port === port.number || p.port === port.name),
    );
  /** Whether the policies selecting `pod` (in the namespace) let the connection through in `direction`. */
  function allowedBy(direction, pod, peer, port) {
    const type = direction === 'ingress' ? 'Ingress' : 'Egress';
    const applying = policies.filter((policy) => {
      const types = policy.spec?.policyTypes ?? (policy.spec?.egress ? ['Ingress', 'Egress'] : ['Ingress']);
      return types.includes(type) && selects(policy.spec?.podSelector, pod.podLabels);
    });
    if (applying.length === 0) return true;
    const peersOf = (rule) => rule[direction === 'ingress' ? 'from' : 'to'];
    return applying.some((policy) =>
      (policy.spec?.[direction] ?? []).some((rule) => {
        const rulePeers = peersOf(rule);
        const peerOk = !rulePeers || rulePeers.length === 0 || rulePeers.some((p) => peerMatches(p, peer));
        return peerOk && portMatches(rule.ports, port);
      }),
    );
  }
  /** A service's pods (their labels) and the container port its Service sends to. */
  function podsOf(name) {
    const deployment = byKind('Deployment').find((m) => m.doc.metadata?.name === name)?.doc;
    const service = services.find((m) => m.doc.metadata?.name === name)?.doc;
    if (!deployment || !service) return null;
    const servicePort = service.spec?.ports?.[0];
    const target = servicePort?.targetPort ?? servicePort?.port;
    const containerPort = (deployment.spec?.template?.spec?.containers ?? [])
      .flatMap((c) => c.ports ?? [])
      .find((p) => p.name === target || p.containerPort === target);
    if (!containerPort) return null;
    return {
      pod: endpoint(NAMESPACE, deployment.spec?.template?.metadata?.labels ?? {}),
      servicePort: servicePort.port,
      port: { number: containerPort.containerPort, name: containerPort.name },
    };
  }
  if (policies.length === 0) problem('base/network-policy.yaml', 'no NetworkPolicy');
  for (const [caller, callees] of Object.entries(CALLS)) {
    const from = podsOf(caller);
    if (!from) continue; // reported above
    for (const callee of callees) {
      const to = podsOf(callee);
      if (!to) continue;
      const url = `http://${callee}:${to.servicePort}`;
      if (!Object.values(configMapOf(caller) ?? {}).includes(url))
        problem(`base/${caller}.yaml`, `its ConfigMap does not name ${url}`);
      if (!allowedBy('egress', from.pod, to.pod, to.port))
        problem('base/network-policy.yaml', `${caller} may not connect to ${callee} (port ${to.port.number}): no egress rule`);
      if (!allowedBy('ingress', to.pod, from.pod, to.port))
        problem('base/network-policy.yaml', `${callee} does not accept ${caller} (port ${to.port.number}): no ingress rule`);
    }
  }
  // The operator pods are started out of band: only the callee's side is checked.
  for (const callee of OPS_CALLS) {
    const to = podsOf(callee);
    if (to && !allowedBy('ingress', to.pod, endpoint(NAMESPACE, { 'app.kubernetes.io/name': 'ops' }), to.port))
      problem('base/network-policy.yaml', `${callee} does not accept the operator pods (app.kubernetes.io/name: ops)`);
  }
  for (const name of Object.keys(PUBLIC_BASE_URLS)) {
    const to = podsOf(name);
    if (to && !allowedBy('ingress', to.pod, endpoint(INGRESS_NAMESPACE, null), to.port))
      problem('base/network-policy.yaml', `${name} does not accept the ingress controller (namespace ${INGRESS_NAMESPACE})`);
  }

  // ---- 2d. the release: images, the migrate Job, autoscaling, secrets ----
  const podSpecsOf = (kind) =>
    byKind(kind).map((m) => ({ ...m, name: m.doc.metadata?.name, spec: m.doc.spec?.template?.spec ?? {} }));
  const workloads = [...podSpecsOf('Deployment'), ...podSpecsOf('Job')];
  const tags = new Set();
  for (const { where, name, spec } of workloads)
    for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
      const at = `${where} ${name} container ${container.name}`;
      const match = /^(?<repository>[^@]+?)(?::(?<tag>[^:/@]+))?(?:@(?<digest>sha256:[0-9a-f]{64}))?$/.exec(
        container.image ?? '',
      );
      const tag = match?.groups?.tag;
      if (!tag || !RELEASE_TAG.test(tag))
        problem(at, `image ${container.image} is not pinned to a release tag <version>-<commit> (scripts/release-images.mjs)`);
      else tags.add(tag);
      if (container.imagePullPolicy === 'IfNotPresent' && !(tag && RELEASE_TAG.test(tag)) && !match?.groups?.digest)
        problem(at, 'imagePullPolicy IfNotPresent needs an immutable image reference (a release tag or a digest)');
    }
  if (tags.size > 1) problem('images', `one release per overlay: tags ${[...tags].join(', ')}`);
  const releaseTag = [...tags][0];

  // Migrations: one Job per release, a container per service with a schema, the pods not migrating.
  const schemaServices = Object.keys(SERVICES).filter((name) => existsSync(path.join(ROOT, 'services', name, 'migrations')));
  const jobs = podSpecsOf('Job');
  const migrateJob = jobs.find((job) => job.doc.metadata?.labels?.['app.kubernetes.io/component'] === 'migration');
  if (!migrateJob) problem('Job', 'no migrate Job (app.kubernetes.io/component: migration)');
  else {
    if (releaseTag && migrateJob.name !== `migrate-${releaseTag}`)
      problem(migrateJob.where, `the migrate Job is named ${migrateJob.name}: want migrate-${releaseTag} (one Job per release)`);
    if (migrateJob.doc.spec?.template?.spec?.restartPolicy === 'Always') problem(migrateJob.where, 'a Job cannot restart Always');
    if (migrateJob.doc.spec?.template?.metadata?.labels?.['app.kubernetes.io/part-of'] !== 'idv')
      problem(
        migrateJob.where,
        'its pods must be labelled app.kubernetes.io/part-of: idv (the policy letting them reach PostgreSQL)',
      );
    if (migrateJob.spec.securityContext?.runAsNonRoot !== true) problem(migrateJob.where, 'runAsNonRoot is not set');
    const containers = [...(migrateJob.spec.initContainers ?? []), ...(migrateJob.spec.containers ?? [])];
    for (const service of schemaServices) {
      const container = containers.find((c) => c.name === service);
      const deployment = byKind('Deployment').find((m) => m.doc.metadata?.name === service)?.doc;
      const serviceImage = deployment?.spec?.template?.spec?.containers?.[0]?.image;
      if (!container) {
        problem(migrateJob.where, `no container migrates ${service}'s schema`);
        continue;
      }
      if (container.image !== serviceImage)
        problem(migrateJob.where, `${service}: image ${container.image} is not the Deployment's ${serviceImage}`);
      if ((container.command ?? []).join(' ') !== 'node dist/migrate.js')
        problem(migrateJob.where, `${service}: the command must be node dist/migrate.js`);
      if (!existsSync(path.join(ROOT, 'services', service, 'src', 'migrate.ts')))
        problem(`services/${service}/src/migrate.ts`, 'missing (the migrate Job runs its dist/migrate.js)');
      if (!container.env?.some((e) => e.name === 'DATABASE_URL' && e.valueFrom?.secretKeyRef))
        problem(migrateJob.where, `${service}: DATABASE_URL must come from a Secret`);
      if (container.securityContext?.allowPrivilegeEscalation !== false)
        problem(migrateJob.where, `${service}: allowPrivilegeEscalation must be false`);
      for (const kind of ['requests', 'limits'])
        for (const resource of ['cpu', 'memory'])
          if (container.resources?.[kind]?.[resource] === undefined)
            problem(migrateJob.where, `${service}: resources.${kind}.${resource} is missing`);
      if (configMapOf(service)?.MIGRATE_ON_START !== 'false')
        problem(`base/${service}.yaml`, "the ConfigMap must set MIGRATE_ON_START: 'false' (the migrate Job migrates)");
    }
  }

  // Autoscaling: autoscaling/v2 HPAs on CPU (and the flow-runner's queue), bounds a drain can live with.
  const hpas = byKind('HorizontalPodAutoscaler');
  for (const { where, doc } of hpas) {
    if (doc.apiVersion !== 'autoscaling/v2') problem(where, `use autoscaling/v2 (is ${doc.apiVersion})`);
    const { minReplicas = 1, maxReplicas } = doc.spec ?? {};
    if (!(maxReplicas >= minReplicas)) problem(where, `maxReplicas ${maxReplicas} is below minReplicas ${minReplicas}`);
    const target = doc.spec?.scaleTargetRef ?? {};
    if (target.kind !== 'Deployment' || !byKind('Deployment').some((m) => m.doc.metadata?.name === target.name))
      problem(where, `scaleTargetRef ${target.kind}/${target.name} is not a Deployment here`);
  }
  for (const [service, extraMetrics] of Object.entries(AUTOSCALED)) {
    const hpa = hpas.find((m) => m.doc.spec?.scaleTargetRef?.name === service)?.doc;
    if (!hpa) {
      problem('HorizontalPodAutoscaler', `none scales ${service}`);
      continue;
    }
    const metrics = hpa.spec?.metrics ?? [];
    if (!metrics.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource?.target?.type === 'Utilization'))
      problem(`HorizontalPodAutoscaler/${hpa.metadata?.name}`, 'no CPU utilisation metric');
    for (const name of extraMetrics)
      if (
        !metrics.some(
          (m) =>
            (m.type === 'External' && m.external?.metric?.name === name) || (m.type === 'Pods' && m.pods?.metric?.name === name),
        )
      )
        problem(`HorizontalPodAutoscaler/${hpa.metadata?.name}`, `no External (or Pods) metric ${name}`);
    const deployment = byKind('Deployment').find((m) => m.doc.metadata?.name === service)?.doc;
    if (deployment?.spec?.replicas !== undefined)
      problem(`Deployment/${service}`, "sets replicas although an HPA scales it: each apply would reset the HPA's count");
    const budget = byKind('PodDisruptionBudget').find((m) =>
      selects(m.doc.spec?.selector, deployment?.spec?.template?.metadata?.labels ?? {}),
    )?.doc;
    if (typeof budget?.spec?.minAvailable === 'number' && (hpa.spec?.minReplicas ?? 1) <= budget.spec.minAvailable)
      problem(
        `HorizontalPodAutoscaler/${hpa.metadata?.name}`,
        `minReplicas must exceed the PodDisruptionBudget's minAvailable ${budget.spec.minAvailable}`,
      );
  }
  const adapterValues = path.join(K8S_DIR, 'prometheus-adapter', 'values.yaml');
  for (const name of Object.values(AUTOSCALED).flat())
    if (!existsSync(adapterValues) || !readFileSync(adapterValues, 'utf8').includes(`as: ${name}`))
      problem(rel(adapterValues), `no prometheus-adapter rule serves ${name}`);

  // Secrets: what the pods reference is what the example (and so the README's commands) creates.
  for (const { where, name, spec } of workloads)
    for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
      const at = `${where} ${name} container ${container.name}`;
      for (const entry of container.env ?? []) {
        const ref = entry.valueFrom?.secretKeyRef;
        if (!ref) continue;
        const keys = exampleSecrets.get(ref.name);
        if (!keys) {
          if (!ref.optional) problem(at, `${entry.name}: Secret ${ref.name} is not in secrets.example.yaml`);
        } else if (!keys.has(ref.key)) problem(at, `${entry.name}: key ${ref.key} is not in secrets.example.yaml's ${ref.name}`);
      }
      for (const source of container.envFrom ?? [])
        if (source.secretRef && !source.secretRef.optional && !exampleSecrets.has(source.secretRef.name))
          problem(at, `envFrom Secret ${source.secretRef.name} is not in secrets.example.yaml`);
    }

  // The gateway's idle connections outlive the load balancer's (which must be the one to close them).
  const keepAlive = Number(configMapOf('gateway')?.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? 65_000);
  if (!(keepAlive > LOAD_BALANCER_IDLE_TIMEOUT_MS))
    problem(
      'base/gateway.yaml',
      `HTTP_KEEP_ALIVE_TIMEOUT_MS ${keepAlive} must exceed a load balancer's ${LOAD_BALANCER_IDLE_TIMEOUT_MS} ms idle timeout`,
    );
}

// ---- 3. the base's kustomization; the README's Secret commands ----
if (!kustomization) problem('deploy/k8s/base', 'kustomization.yaml is missing');
else {
  const dir = path.dirname(kustomization.file);
  const listed = new Set((kustomization.doc.resources ?? []).map((r) => path.resolve(dir, r)));
  for (const file of listed) if (!existsSync(file)) problem(rel(kustomization.file), `resource ${rel(file)} does not exist`);
  for (const file of yamlFiles)
    if (path.dirname(file) === BASE_DIR && file !== kustomization.file && !listed.has(file))
      problem(rel(kustomization.file), `${rel(file)} is not listed in resources`);
}
// The README's `kubectl create secret generic NAME --from-literal=KEY=…` commands (continued lines joined)
// create every key of every example Secret: an operator following it gets pods that start.
const readmeFile = path.join(K8S_DIR, 'README.md');
const readme = existsSync(readmeFile) ? readFileSync(readmeFile, 'utf8') : '';
const created = new Map();
for (const command of readme.replace(/\\\n\s*/g, ' ').split('\n')) {
  const match = /kubectl\b.*\bcreate secret generic ([a-z0-9-]+)(.*)$/.exec(command);
  if (!match) continue;
  const keys = created.get(match[1]) ?? new Set();
  for (const key of match[2].matchAll(/--from-(?:literal|file)=([A-Za-z0-9_]+)=/g)) keys.add(key[1]);
  created.set(match[1], keys);
}
for (const [name, keys] of exampleSecrets) {
  if (!created.has(name)) problem(rel(readmeFile), `no \`kubectl create secret generic ${name}\` command`);
  else
    for (const key of keys)
      if (!created.get(name).has(key)) problem(rel(readmeFile), `the command creating ${name} does not set ${key}`);
}

// ---- 4. Dockerfiles and compose ----
const composeFile = path.join(ROOT, 'docker-compose.yml');
let compose = null;
if (!existsSync(composeFile)) problem('docker-compose.yml', 'missing');
else {
  try {
    compose = parseYaml(readFileSync(composeFile, 'utf8'), { merge: true });
  } catch (error) {
    problem('docker-compose.yml', `YAML: ${error.message}`);
  }
}
for (const [name, port] of Object.entries(SERVICES)) {
  const build = compose?.services?.[name]?.build;
  const declared = build?.dockerfile;
  if (compose && !compose.services?.[name]) problem('docker-compose.yml', `no service ${name}`);
  if (!declared) {
    problem('docker-compose.yml', `services.${name}.build.dockerfile is not set`);
    continue;
  }
  const dockerfile = path.join(ROOT, declared);
  if (!existsSync(dockerfile)) {
    problem('docker-compose.yml', `services.${name}.build.dockerfile ${declared} does not exist`);
    continue;
  }
  const text = readFileSync(dockerfile, 'utf8');
  const where = rel(dockerfile);
  // One Dockerfile may serve every service through build arguments (SERVICE, PORT).
  const parameterised = /^ARG SERVICE\s*$/m.test(text);
  if (parameterised && build.args?.SERVICE !== name)
    problem('docker-compose.yml', `services.${name}.build.args.SERVICE is not ${name}`);
  if (parameterised && String(build.args?.PORT) !== String(port))
    problem('docker-compose.yml', `services.${name}.build.args.PORT is not ${port}`);
  const exposed = parameterised ? /^EXPOSE \$\{PORT\}\s*$/m.test(text) : new RegExp(`^EXPOSE ${port}\\s*$`, 'm').test(text);
  if ((text.match(/^FROM /gm) ?? []).length < 2) problem(where, 'is not multi-stage');
  if (!/^USER node\s*$/m.test(text)) problem(where, 'does not switch to the non-root `node` user');
  if (!/^CMD \["node", ?"dist\/main\.js"\]\s*$/m.test(text)) problem(where, 'does not run CMD ["node", "dist/main.js"]');
  if (!exposed) problem(where, `does not EXPOSE ${parameterised ? '${PORT}' : port}`);
  if (!text.includes('--frozen-lockfile')) problem(where, 'does not install with --frozen-lockfile');
  checkNodeBase(where, text);
}
/** Every stage on a supported Node LTS (22 or 24), pinned to a release (x.y.z), directly or through ARG NODE_VERSION. */
function checkNodeBase(where, text) {
  const version = /^ARG NODE_VERSION=(\S+)\s*$/m.exec(text)?.[1];
  for (const [, image] of text.matchAll(/^FROM (\S+)/gm)) {
    const resolved = image.replace('${NODE_VERSION}', version ?? '');
    if (!/^node:(22|24)\.\d+\.\d+(-[a-z0-9.-]+)?(@sha256:[0-9a-f]{64})?$/.test(resolved))
      problem(where, `FROM ${image} is not a Node 22 or 24 image pinned to a release (node:22.x.y-bookworm-slim)`);
  }
  // The images ship the Node release the whole suite runs on in CI (scripts/node-runtime.sh).
  const tested = /^IDV_NODE_VERSION=(\S+)\s*$/m.exec(readFileSync(path.join(ROOT, 'scripts', 'node-runtime.sh'), 'utf8'))?.[1];
  if (version && version !== tested)
    problem(where, `ARG NODE_VERSION=${version} is not the Node release CI tests on (${tested}, scripts/node-runtime.sh)`);
}
const opsDockerfile = path.join(ROOT, 'deploy', 'docker', 'ops.Dockerfile');
if (existsSync(opsDockerfile)) checkNodeBase(rel(opsDockerfile), readFileSync(opsDockerfile, 'utf8'));
// The local stack: the gateway lets the dashboard's local origin call the API from a browser.
const composeDefault = (value) => /^\$\{[A-Z0-9_]+:-(.*)\}$/.exec(String(value ?? ''))?.[1] ?? value;
const composeEnv = (name) => compose?.services?.[name]?.environment ?? {};
const composeDashboardUrl = composeDefault(composeEnv('dashboard').DASHBOARD_BASE_URL);
if (compose && composeDashboardUrl) {
  const origins = String(composeDefault(composeEnv('gateway').CORS_ORIGINS) ?? '')
    .split(',')
    .map((o) => o.trim());
  if (!origins.includes(new URL(composeDashboardUrl).origin))
    problem(
      'docker-compose.yml',
      `the gateway's CORS_ORIGINS does not allow the dashboard's ${new URL(composeDashboardUrl).origin}`,
    );
} else if (compose) problem('docker-compose.yml', 'services.dashboard.environment.DASHBOARD_BASE_URL is not set');

const dockerignore = path.join(ROOT, '.dockerignore');
if (!existsSync(dockerignore) || !/node_modules/.test(readFileSync(dockerignore, 'utf8')))
  problem('.dockerignore', 'missing or does not exclude node_modules');

function hasBinary(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}
if (!hasBinary('docker-compose') && process.env.CI === 'true' && process.getuid?.() === 0) {
  console.log('[validate-deploy] installing docker-compose from Debian to check docker-compose.yml');
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'docker-compose'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (error) {
    problem('docker-compose', `could not install it: ${error.message}`);
  }
}
if (existsSync(composeFile)) {
  if (hasBinary('docker-compose')) {
    const result = spawnSync('docker-compose', ['-f', composeFile, 'config', '-q'], { cwd: ROOT, encoding: 'utf8' });
    if (result.status !== 0) problem('docker-compose.yml', `docker-compose config: ${(result.stderr || result.stdout).trim()}`);
    else notes.push('docker-compose.yml: docker-compose config -q passed');
  } else {
    console.log(
      '[validate-deploy] docker-compose not found (install it with apt-get install docker-compose): compose check skipped',
    );
  }
}

// ---- report ----
for (const note of notes) console.log(`[validate-deploy] note: ${note}`);
const summary = `${yamlFiles.length} files; rendered: ${renderedSummary.join(', ') || 'nothing'}`;
if (problems.length > 0) {
  const distinct = [...new Set(problems)];
  console.error(`[validate-deploy] ${distinct.length} problem(s) (${summary}):`);
  for (const p of distinct) console.error(`  - ${p}`);
  process.exit(1);
}
console.log(`[validate-deploy] ok: ${summary}`);
