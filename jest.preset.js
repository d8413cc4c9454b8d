/** Shared jest settings: swc for speed (types are checked by `tsc --noEmit`), real services in tests. */
const fs = require('node:fs');
const path = require('node:path');

const base = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
    // Server-side JSX (the flow-runner's pages): preact's automatic runtime, as their tsconfig says.
    '^.+\\.tsx$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', tsx: true },
          target: 'es2022',
          transform: { react: { runtime: 'automatic', importSource: 'preact' } },
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/src/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 60_000,
};

/**
 * The three tiers, by file name (docs/testing.md): `unit` is pure (no stack, no network, seconds);
 * `component` is one part with its real dependencies (a service's app in-process against the real stores,
 * a reading library on its real engines and models, a CLI process); `e2e` is the stack of processes.
 */
const TIERS = ['unit', 'component', 'e2e'];

const testkit = path.join(__dirname, 'packages', 'testkit', 'dist', 'jest');
const stackHooks = {
  globalSetup: path.join(testkit, 'global-setup.js'),
  globalTeardown: path.join(testkit, 'global-teardown.js'),
};

function tierMatch(tier) {
  return [`<rootDir>/test/**/*.${tier}.test.ts`, `<rootDir>/src/**/*.${tier}.test.ts`];
}

/**
 * Every package and service of the repository as one jest project per tier asked for. The component and e2e
 * projects carry the stack's hooks: jest runs a project's global setup only when one of its tests is
 * selected, so a run of unit tests starts nothing, and the setup starts one stack however many projects ask.
 */
function projectsOf(root, ...tiers) {
  const dirs = ['packages', 'services']
    .flatMap((group) => fs.readdirSync(path.join(root, group)).map((name) => path.join(root, group, name)))
    .filter((dir) => fs.existsSync(path.join(dir, 'package.json')));
  return dirs.flatMap((dir) =>
    tiers.map((tier) => ({
      ...base,
      ...(tier === 'unit' ? {} : stackHooks),
      displayName: `${path.basename(dir)} ${tier}`,
      rootDir: dir,
      testMatch: tierMatch(tier),
    })),
  );
}

/** A package's own `jest` (turbo run test): all its tests, with the stack. */
module.exports = { ...base, ...stackHooks };
// Not options jest knows: kept off the enumerable keys so jest does not warn about them.
Object.defineProperty(module.exports, 'base', { value: base, enumerable: false });
Object.defineProperty(module.exports, 'TIERS', { value: TIERS, enumerable: false });
Object.defineProperty(module.exports, 'projectsOf', { value: projectsOf, enumerable: false });
