#!/usr/bin/env node
// Validates the deployment files offline, with no cluster and no Docker daemon:
//  - every manifest under deploy/k8s against the Kubernetes schemas (kubernetes-models, by apiVersion/kind);
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
//  - kustomization.yaml lists files that exist and every manifest that is not an example;
//  - compose builds each service from a Dockerfile that exists, is multi-stage, runs as `node` and starts
//    dist/main.js (one parameterised Dockerfile with SERVICE and PORT build arguments serves all of them);
//    its gateway's CORS_ORIGINS allows its dashboard's origin;
//  - docker-compose.yml with `docker-compose config -q` (Debian's docker-compose 1.29) when available.
// Exits 1 and prints every problem found.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse as parseYaml } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const K8S_DIR = path.join(ROOT, 'deploy', 'k8s');
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

// ---- 1. parse and schema-validate every manifest ----
const manifests = []; // { file, doc }
let kustomization = null;
const yamlFiles = listYaml(K8S_DIR);
if (yamlFiles.length === 0) problem('deploy/k8s', 'no manifests found');

for (const file of yamlFiles) {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  docs.forEach((document, index) => {
    const where = `${rel(file)}#${index + 1}`;
    if (document.errors.length > 0) {
      for (const error of document.errors) problem(where, `YAML: ${error.message}`);
      return;
    }
    const doc = document.toJS();
    if (doc === null || doc === undefined) return;
    if (doc.kind === 'Kustomization') {
      kustomization = { file, doc };
      return;
    }
    manifests.push({ file, where, doc });
  });
}

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
  if (annotations['prometheus.io/scrape'] !== 'true' || !annotations['prometheus.io/port'] || !annotations['prometheus.io/path'])
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
    const replicas = doc.spec?.replicas ?? 1;
    if (minAvailable === undefined && maxUnavailable === undefined)
      problem(`${budget.where} PodDisruptionBudget/${budget.doc.metadata?.name}`, 'sets neither minAvailable nor maxUnavailable');
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
  if (!byKind('Deployment').some((m) => m.doc.metadata?.name === name)) problem('deploy/k8s', `no Deployment for ${name}`);
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
if (!Number.isFinite(flowRequestTimeoutMs))
  problem('deploy/k8s/flow-runner.yaml', 'the ConfigMap must set HTTP_REQUEST_TIMEOUT_MS');
// The dashboard's forms (urlencoded, FORM_BODY_LIMIT in its pages' router, not exported: read from the built file).
const dashboardRoutes = path.join(ROOT, 'services/dashboard/dist/http/routes.js');
const dashboardFormLimit = existsSync(dashboardRoutes)
  ? nginxBytes(/\bFORM_BODY_LIMIT = '(\d+[kmg]?)b?'/i.exec(readFileSync(dashboardRoutes, 'utf8'))?.[1])
  : null;
if (dashboardFormLimit === null) problem(rel(dashboardRoutes), "FORM_BODY_LIMIT = '<n>kb' not found (build the dashboard first)");
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
      if (!(seconds >= needs.timeoutSeconds)) problem(where, `${name} must be at least ${needs.timeoutSeconds} s for ${backend}`);
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
      problem('deploy/k8s/ingress.yaml', `the dashboard's page ${pagePath} is not routed (add it to its Ingress)`);
  }
} catch (error) {
  problem('services/dashboard/dist/http/routes.js', `could not list the dashboard's pages: ${error.message}`);
}
for (const name of Object.keys(PUBLIC_BASE_URLS)) {
  const routed = byKind('Ingress').some((m) =>
    (m.doc.spec?.rules ?? []).some((rule) => (rule.http?.paths ?? []).some((p) => p.backend?.service?.name === name)),
  );
  if (!routed) problem('deploy/k8s/ingress.yaml', `no Ingress routes ${name}`);
}
// The gateway lets exactly the dashboard's origin call the API from a browser.
const dashboardBaseUrl = configMapOf('dashboard')?.DASHBOARD_BASE_URL;
const gatewayCors = configMapOf('gateway')?.CORS_ORIGINS;
if (dashboardBaseUrl && gatewayCors !== new URL(dashboardBaseUrl).origin)
  problem(
    'deploy/k8s/gateway.yaml',
    `CORS_ORIGINS must be the dashboard's origin ${new URL(dashboardBaseUrl).origin} (is ${gatewayCors})`,
  );
if (configMapOf('dashboard')?.SECURE_COOKIES !== 'true')
  problem('deploy/k8s/dashboard.yaml', "SECURE_COOKIES must be 'true' behind the ingress's TLS");

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
if (policies.length === 0) problem('deploy/k8s/network-policy.yaml', 'no NetworkPolicy');
for (const [caller, callees] of Object.entries(CALLS)) {
  const from = podsOf(caller);
  if (!from) continue; // reported above
  for (const callee of callees) {
    const to = podsOf(callee);
    if (!to) continue;
    const url = `http://${callee}:${to.servicePort}`;
    if (!Object.values(configMapOf(caller) ?? {}).includes(url))
      problem(`deploy/k8s/${caller}.yaml`, `its ConfigMap does not name ${url}`);
    if (!allowedBy('egress', from.pod, to.pod, to.port))
      problem(
        'deploy/k8s/network-policy.yaml',
        `${caller} may not connect to ${callee} (port ${to.port.number}): no egress rule`,
      );
    if (!allowedBy('ingress', to.pod, from.pod, to.port))
      problem('deploy/k8s/network-policy.yaml', `${callee} does not accept ${caller} (port ${to.port.number}): no ingress rule`);
  }
}
// The operator pods are started out of band: only the callee's side is checked.
for (const callee of OPS_CALLS) {
  const to = podsOf(callee);
  if (to && !allowedBy('ingress', to.pod, endpoint(NAMESPACE, { 'app.kubernetes.io/name': 'ops' }), to.port))
    problem('deploy/k8s/network-policy.yaml', `${callee} does not accept the operator pods (app.kubernetes.io/name: ops)`);
}
for (const name of Object.keys(PUBLIC_BASE_URLS)) {
  const to = podsOf(name);
  if (to && !allowedBy('ingress', to.pod, endpoint(INGRESS_NAMESPACE, null), to.port))
    problem('deploy/k8s/network-policy.yaml', `${name} does not accept the ingress controller (namespace ${INGRESS_NAMESPACE})`);
}

// ---- 3. kustomization ----
if (!kustomization) problem('deploy/k8s', 'kustomization.yaml is missing');
else {
  const dir = path.dirname(kustomization.file);
  const listed = new Set((kustomization.doc.resources ?? []).map((r) => path.resolve(dir, r)));
  for (const file of listed) if (!existsSync(file)) problem(rel(kustomization.file), `resource ${rel(file)} does not exist`);
  for (const file of yamlFiles)
    if (file !== kustomization.file && !/\.example\.ya?ml$/.test(file) && !listed.has(file))
      problem(rel(kustomization.file), `${rel(file)} is not listed in resources`);
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
}
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
const summary = `${manifests.length} manifests in ${yamlFiles.length} files, ${byKind('Deployment').length} Deployments`;
if (problems.length > 0) {
  console.error(`[validate-deploy] ${problems.length} problem(s) (${summary}):`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log(`[validate-deploy] ok: ${summary}`);
