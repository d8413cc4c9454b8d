#!/usr/bin/env node
// Validates the deployment files offline, with no cluster and no Docker daemon:
//  - every manifest under deploy/k8s against the Kubernetes schemas (kubernetes-models, by apiVersion/kind);
//  - every Deployment: readiness (/readyz) and liveness (/healthz) probes, requests and limits, a grace period
//    of at least 30 s, a preStop hook, a non-root security context, Prometheus annotations, a Service that
//    selects it and a ConfigMap it reads, both present;
//  - each Ingress's body size and timeouts cover what its service accepts (read from the built code and the
//    flow-runner's ConfigMap), one Ingress per service;
//  - kustomization.yaml lists files that exist and every manifest that is not an example;
//  - compose builds each service from a Dockerfile that exists, is multi-stage, runs as `node` and starts
//    dist/main.js (one parameterised Dockerfile with SERVICE and PORT build arguments serves all of them);
//  - docker-compose.yml with `docker-compose config -q` (Debian's docker-compose 1.29) when available.
// Exits 1 and prints every problem found.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse as parseYaml } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const K8S_DIR = path.join(ROOT, 'deploy', 'k8s');
const SERVICES = { gateway: 8080, keys: 8081, sessions: 8082, 'flow-runner': 8083, webhooks: 8084 };
const MIN_GRACE_SECONDS = 30;

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
const ingressNeeds = {
  gateway: { bodyBytes: kitBodyLimit, timeoutSeconds: 60 },
  'flow-runner': { bodyBytes: MULTIPART_LIMIT_BYTES, timeoutSeconds: flowRequestTimeoutMs / 1000, unbuffered: true },
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
