import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';

/**
 * scripts/release-images.mjs offline: the tag it computes, the overlay it rewrites (rendered with kustomize as
 * CI renders it), and the docker commands it runs, against a stand-in `docker` on the PATH that records its
 * arguments and answers as a registry would (no daemon here).
 */
const ROOT = path.join(__dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'release-images.mjs');
const SERVICES = ['gateway', 'keys', 'sessions', 'flow-runner', 'webhooks', 'dashboard'];
const COMMIT = 'abcdef0123456789abcdef0123456789abcdef01';
const DIGEST = `sha256:${'5e'.repeat(32)}`;
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;

let work: string;
let k8s: string;
let dockerLog: string;
beforeEach(() => {
  work = mkdtempSync(path.join(tmpdir(), 'release-images-'));
  k8s = path.join(work, 'k8s');
  cpSync(path.join(ROOT, 'deploy', 'k8s'), k8s, { recursive: true });
  dockerLog = path.join(work, 'docker.log');
  const bin = path.join(work, 'bin');
  mkdirSync(bin);
  // A registry that has no tag yet (FAKE_EXISTING=1: has every tag) and returns one digest per pushed image.
  writeFileSync(
    path.join(bin, 'docker'),
    `#!/bin/sh
echo "$*" >> "${dockerLog}"
case "$1" in
  manifest) [ "$FAKE_EXISTING" = 1 ] && exit 0; exit 1 ;;
  image) for last; do :; done; echo "[\\"\${last%:*}@${DIGEST}\\"]" ;;
esac
exit 0
`,
  );
  chmodSync(path.join(bin, 'docker'), 0o755);
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

async function release(args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [SCRIPT, '--overlays-dir', path.join(k8s, 'overlays'), ...args],
      { env: { ...process.env, PATH: `${path.join(work, 'bin')}:${process.env.PATH}`, ...env } },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

const overlay = (name: string) => parse(readFileSync(path.join(k8s, 'overlays', name, 'kustomization.yaml'), 'utf8'));
/** Every container image and the Job's name in the overlay as kustomize renders it. */
function rendered(name: string): { images: string[]; jobs: string[] } {
  const output = spawnSync('kubectl', ['kustomize', path.join(k8s, 'overlays', name)], { encoding: 'utf8' });
  expect(output.status).toBe(0);
  const docs = parseAllDocuments(output.stdout).map((doc) => doc.toJSON() as Record<string, any>);
  const podSpecs = docs.map((doc) => doc.spec?.template?.spec).filter(Boolean);
  return {
    images: podSpecs.flatMap((spec) => [...(spec.containers ?? []), ...(spec.initContainers ?? [])].map((c) => c.image)),
    jobs: docs.filter((doc) => doc.kind === 'Job').map((doc) => doc.metadata.name),
  };
}

it('when the overlay is set for a commit, then every image and the migrate Job carry <version>-<short commit>', async () => {
  const { code, output } = await release(['--no-build', '--version', '1.4.0', '--commit', COMMIT, '--overlay', 'staging']);
  expect({ code, output }).toMatchObject({ code: 0 });
  expect(output).toContain('staging: 1.4.0-abcdef0');
  const images = overlay('staging').images as { name: string; newTag: string; digest?: string }[];
  expect(images.map((image) => image.name).sort()).toEqual(SERVICES.map((s) => `idv/${s}`).sort());
  expect(new Set(images.map((image) => image.newTag))).toEqual(new Set(['1.4.0-abcdef0']));
  expect(images.every((image) => image.digest === undefined)).toBe(true);
  // The other overlay is left as it was.
  expect(overlay('production').images[0].newTag).not.toBe('1.4.0-abcdef0');
  if (hasKubectl) {
    const { images: refs, jobs } = rendered('staging');
    expect(refs.length).toBeGreaterThanOrEqual(SERVICES.length);
    for (const ref of refs) expect(ref).toMatch(/^idv\/[a-z-]+:1\.4\.0-abcdef0$/);
    expect(jobs).toEqual(['migrate-1.4.0-abcdef0']);
  }
});

it('when the images are built and pushed, then each is tagged, labelled and pinned by the registry’s digest', async () => {
  const { code, output } = await release([
    '--registry',
    'registry.example:5000/acme',
    '--push',
    '--version',
    '2.0.1',
    '--commit',
    COMMIT,
    '--overlay',
    'staging',
  ]);
  expect({ code, output }).toMatchObject({ code: 0 });
  const log = readFileSync(dockerLog, 'utf8').trim().split('\n');
  for (const service of SERVICES) {
    const reference = `registry.example:5000/acme/idv/${service}:2.0.1-abcdef0`;
    const build = log.find((line) => line.startsWith('build ') && line.includes(`SERVICE=${service} `));
    expect(build).toContain(`-t ${reference} .`);
    expect(build).toContain('-f deploy/docker/service.Dockerfile');
    expect(build).toContain('VERSION=2.0.1');
    expect(build).toContain(`REVISION=${COMMIT}`);
    expect(log).toContain(`push ${reference}`);
  }
  const images = overlay('staging').images as { newName: string; newTag: string; digest: string }[];
  expect(images.every((image) => image.digest === DIGEST && image.newName.startsWith('registry.example:5000/acme/idv/'))).toBe(
    true,
  );
  if (hasKubectl) {
    for (const ref of rendered('staging').images)
      expect(ref).toMatch(new RegExp(`^registry\\.example:5000/acme/idv/[a-z-]+:2\\.0\\.1-abcdef0@${DIGEST}$`));
  }

  // Promotion: production gets the very images staging runs, digests included, without a build.
  const promoted = await release(['--promote', 'staging', '--overlay', 'production']);
  expect(promoted.code).toBe(0);
  expect(overlay('production').images).toEqual(overlay('staging').images);
});

it('when the registry already has the tag, then nothing is built and the overlay is left alone', async () => {
  const before = readFileSync(path.join(k8s, 'overlays', 'staging', 'kustomization.yaml'), 'utf8');
  const { code, output } = await release(
    ['--registry', 'registry.example/acme', '--push', '--version', '2.0.1', '--commit', COMMIT, '--overlay', 'staging'],
    { FAKE_EXISTING: '1' },
  );
  expect(code).toBe(1);
  expect(output).toContain('already exists in the registry: release tags are immutable');
  expect(readFileSync(dockerLog, 'utf8')).not.toMatch(/^build /m);
  expect(readFileSync(path.join(k8s, 'overlays', 'staging', 'kustomization.yaml'), 'utf8')).toBe(before);
});

it('when the version is not semantic, then no tag is made', async () => {
  const { code, output } = await release(['--no-build', '--version', 'latest', '--commit', COMMIT, '--overlay', 'staging']);
  expect(code).toBe(1);
  expect(output).toContain('is not a semantic version');
});
