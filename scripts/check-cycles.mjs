#!/usr/bin/env node
// Fails when any package or service has an import circle inside its own src/ (type-only imports
// count too: a circle of types is still a knot a newcomer has to untie to read either file).
// madge reads the TypeScript sources, so no build is needed. Run by .ci/run next to typecheck.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MADGE = path.join(ROOT, 'node_modules', '.bin', 'madge');

const sources = ['packages', 'services'].flatMap((group) =>
  readdirSync(path.join(ROOT, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(ROOT, group, entry.name, 'src')))
    .map((entry) => path.join(group, entry.name, 'src')),
);

let failed = 0;
for (const source of sources) {
  const result = spawnSync(
    MADGE,
    ['--circular', '--extensions', 'ts,tsx', '--exclude', '(^|/)(dist|node_modules)/', '--no-spinner', '--no-color', source],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
  );
  if (result.status === 0) {
    console.log(`${source}: no import circle`);
    continue;
  }
  failed++;
  console.error(`${source}: import circles (or madge failed)\n${result.stdout}${result.stderr}`);
}
if (failed > 0) {
  console.error(`${failed} of ${sources.length} source folders have import circles`);
  process.exit(1);
}
console.log(`${sources.length} source folders, no import circle`);
