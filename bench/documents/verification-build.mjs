// Loads a build of packages/verification for the benchmarks: its `tooling` entry (everything the
// benchmarks call), or, for a build older than that entry, its `index` (which then exported everything),
// so a run can pair today's build against an older one with `--verification DIR`.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The verification build under `packageDir` (a checkout's packages/verification). */
export function loadVerification(packageDir) {
  const tooling = path.join(packageDir, 'dist/tooling.js');
  return require(fs.existsSync(tooling) ? tooling : path.join(packageDir, 'dist/index.js'));
}
