#!/usr/bin/env node
// Builds, tags and pushes a release's images, and points the Kubernetes overlays at them.
//
//   node scripts/release-images.mjs --registry ghcr.io/acme --push --overlay staging
//   node scripts/release-images.mjs --promote staging --overlay production      (no build: same images)
//
// The tag is `<version>-<commit>`: the root package.json's version and the commit's first 7 hex digits, so a
// tag names one build of one commit and is never moved (the overlays' `imagePullPolicy: IfNotPresent` relies
// on it). With --push, a tag that the registry already has is refused (immutable), and the digest the
// registry returns is pinned beside the tag. Each overlay named with --overlay gets, in its kustomization.yaml,
// every image's newName (registry), newTag and digest, and the migrate Job's name `migrate-<tag>`: what
// `kustomize edit set image` would write, without needing kustomize. A dirty work tree is refused (the tag
// would name a commit the images were not built from) unless --allow-dirty.
//
// Options: --registry R (image names become R/idv/<service>), --push, --overlay NAME (repeatable),
// --promote NAME (copy that overlay's images instead of building), --no-build (rewrite the overlays only),
// --tag T / --version V / --commit SHA (override the computed values), --overlays-dir D, --dry-run (print the
// docker commands, run none, still rewrite the overlays), --allow-dirty.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Every service's image and the port its Dockerfile exposes (docker-compose.yml's build args). */
export const SERVICES = { gateway: 8080, keys: 8081, sessions: 8082, 'flow-runner': 8083, webhooks: 8084, dashboard: 8085 };
const IMAGE_PREFIX = 'idv/';
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?$/;
/** What a release tag looks like: scripts/validate-deploy.mjs refuses any other tag in an overlay. */
export const RELEASE_TAG = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?-[0-9a-f]{7,40}$/;

/** `<version>-<short commit>`: 0.1.0 and 7429b87e… give `0.1.0-7429b87`. */
export function releaseTag(version, commit) {
  if (!SEMVER.test(String(version))) throw new Error(`version ${version} is not a semantic version (x.y.z)`);
  if (!/^[0-9a-f]{7,40}$/.test(String(commit))) throw new Error(`commit ${commit} is not a hexadecimal commit id`);
  return `${version}-${String(commit).slice(0, 7)}`;
}

/** The image reference of a service: `<registry>/idv/<service>:<tag>`. */
export function imageName(service, registry) {
  return registry ? `${registry.replace(/\/+$/, '')}/${IMAGE_PREFIX}${service}` : `${IMAGE_PREFIX}${service}`;
}

/**
 * A kustomization.yaml's text with the release set: for each service its `images:` entry (newName when the
 * registry is not the default, newTag, digest when known, else none) and the migrate Job renamed
 * `migrate-<tag>`. Comments and the other entries are kept.
 */
export function setRelease(kustomizationText, { tag, registry, digests = {} }) {
  if (!RELEASE_TAG.test(tag)) throw new Error(`tag ${tag} is not a release tag (<version>-<commit>)`);
  const document = parseDocument(kustomizationText);
  const images = document.get('images') ?? document.createNode([]);
  const entries = images.items ?? [];
  for (const service of Object.keys(SERVICES)) {
    const name = `${IMAGE_PREFIX}${service}`;
    let entry = entries.find((item) => item.get('name') === name);
    if (!entry) {
      entry = document.createNode({ name });
      entries.push(entry);
    }
    const newName = imageName(service, registry);
    if (newName !== name) entry.set('newName', newName);
    else entry.delete('newName');
    entry.set('newTag', tag);
    if (digests[service]) entry.set('digest', digests[service]);
    else entry.delete('digest');
  }
  document.set('images', images);
  const patches = document.get('patches');
  const jobPatch = patches?.items?.find(
    (item) => item.getIn(['target', 'kind']) === 'Job' && item.getIn(['target', 'name']) === 'migrate',
  );
  const renamed = `migrate-${tag}`;
  const operation = `- op: replace\n  path: /metadata/name\n  value: ${renamed}`;
  if (jobPatch) jobPatch.set('patch', operation);
  else {
    const list = patches ?? document.createNode([]);
    list.items.push(document.createNode({ target: { kind: 'Job', name: 'migrate' }, patch: operation }));
    document.set('patches', list);
  }
  return document.toString({ lineWidth: 0 });
}

/** The images of an overlay: service → { newName, newTag, digest }. */
export function releaseOf(kustomizationText) {
  const parsed = parseDocument(kustomizationText).toJS() ?? {};
  return Object.fromEntries(
    (parsed.images ?? [])
      .filter((image) => String(image.name).startsWith(IMAGE_PREFIX))
      .map((image) => [image.name.slice(IMAGE_PREFIX.length), image]),
  );
}

function parseArguments(argv) {
  const options = { overlays: [], push: false, build: true, dryRun: false, allowDirty: false };
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined || next.startsWith('--')) throw new Error(`${argument} needs a value`);
      return next;
    };
    if (argument === '--registry') options.registry = value();
    else if (argument === '--push') options.push = true;
    else if (argument === '--overlay') options.overlays.push(value());
    else if (argument === '--promote') options.promote = value();
    else if (argument === '--no-build') options.build = false;
    else if (argument === '--tag') options.tag = value();
    else if (argument === '--version') options.version = value();
    else if (argument === '--commit') options.commit = value();
    else if (argument === '--overlays-dir') options.overlaysDir = path.resolve(value());
    else if (argument === '--dry-run') options.dryRun = true;
    else if (argument === '--allow-dirty') options.allowDirty = true;
    else throw new Error(`unknown argument ${argument}`);
  }
  return options;
}

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

function main(argv) {
  const options = parseArguments(argv);
  const overlaysDir = options.overlaysDir ?? path.join(ROOT, 'deploy', 'k8s', 'overlays');
  const kustomizationOf = (overlay) => path.join(overlaysDir, overlay, 'kustomization.yaml');
  for (const overlay of [...options.overlays, ...(options.promote ? [options.promote] : [])])
    if (!existsSync(kustomizationOf(overlay))) throw new Error(`no overlay ${overlay} (${kustomizationOf(overlay)})`);

  if (options.promote) {
    // The images an environment tested, as they are (registry, tag, digest), into the others.
    const source = releaseOf(readFileSync(kustomizationOf(options.promote), 'utf8'));
    const tags = new Set(Object.keys(SERVICES).map((service) => source[service]?.newTag));
    if (tags.size !== 1 || [...tags][0] === undefined) throw new Error(`${options.promote} does not pin one tag for every image`);
    const tag = [...tags][0];
    const registries = new Set(
      Object.keys(SERVICES).map((service) => path.dirname(path.dirname(source[service].newName ?? `${IMAGE_PREFIX}${service}`))),
    );
    const registry = [...registries][0] === '.' ? undefined : [...registries][0];
    const digests = Object.fromEntries(Object.keys(SERVICES).map((service) => [service, source[service].digest]));
    for (const overlay of options.overlays) {
      writeFileSync(
        kustomizationOf(overlay),
        setRelease(readFileSync(kustomizationOf(overlay), 'utf8'), { tag, registry, digests }),
      );
      console.log(`[release] ${overlay}: ${tag} (from ${options.promote})`);
    }
    return;
  }

  const commit = options.commit ?? git('rev-parse', 'HEAD');
  const version = options.version ?? JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  const tag = options.tag ?? releaseTag(version, commit);
  if (!RELEASE_TAG.test(tag)) throw new Error(`tag ${tag} is not a release tag (<version>-<commit>)`);
  const digests = {};

  if (options.build) {
    if (!options.allowDirty && !options.commit && git('status', '--porcelain') !== '')
      throw new Error('the work tree has changes: commit them (the tag names the commit) or pass --allow-dirty');
    const docker = (args, capture = false) => {
      console.log(`[release] docker ${args.join(' ')}`);
      if (options.dryRun) return '';
      const result = spawnSync('docker', args, {
        cwd: ROOT,
        stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
        encoding: 'utf8',
      });
      if (result.error) throw new Error(`docker: ${result.error.message} (is Docker installed?)`);
      if (result.status !== 0) throw new Error(`docker ${args[0]} failed with status ${result.status}`);
      return capture ? result.stdout.trim() : '';
    };
    for (const [service, port] of Object.entries(SERVICES)) {
      const reference = `${imageName(service, options.registry)}:${tag}`;
      if (options.push && !options.dryRun) {
        // An existing tag is never overwritten: a release tag names one build.
        const existing = spawnSync('docker', ['manifest', 'inspect', reference], { stdio: 'ignore' });
        if (existing.status === 0) throw new Error(`${reference} already exists in the registry: release tags are immutable`);
      }
      docker([
        'build',
        '-f',
        'deploy/docker/service.Dockerfile',
        '--build-arg',
        `SERVICE=${service}`,
        '--build-arg',
        `PORT=${port}`,
        '--build-arg',
        `VERSION=${version}`,
        '--build-arg',
        `REVISION=${commit}`,
        '-t',
        reference,
        '.',
      ]);
      if (options.push) {
        docker(['push', reference]);
        const repoDigests = docker(['image', 'inspect', '--format', '{{json .RepoDigests}}', reference], true);
        const digest = options.dryRun
          ? undefined
          : (JSON.parse(repoDigests || '[]') ?? []).map((entry) => /@(sha256:[0-9a-f]{64})$/.exec(entry)?.[1]).find(Boolean);
        if (!options.dryRun && !digest) throw new Error(`no registry digest for ${reference} after the push`);
        if (digest) digests[service] = digest;
      }
    }
  }

  for (const overlay of options.overlays) {
    const file = kustomizationOf(overlay);
    writeFileSync(file, setRelease(readFileSync(file, 'utf8'), { tag, registry: options.registry, digests }));
    console.log(`[release] ${overlay}: ${tag}${Object.keys(digests).length > 0 ? ' with digests' : ''}`);
  }
  if (options.overlays.length === 0) console.log(`[release] ${tag} (no overlay named: pass --overlay staging)`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`[release] ${error.message}`);
    process.exit(1);
  }
}
