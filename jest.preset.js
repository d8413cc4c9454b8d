/** Shared jest settings: swc for speed (types are checked by `tsc --noEmit`), real services in tests. */
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

const testkit = path.join(__dirname, 'packages', 'testkit', 'dist', 'jest');

module.exports = {
  ...base,
  globalSetup: path.join(testkit, 'global-setup.js'),
  globalTeardown: path.join(testkit, 'global-teardown.js'),
};
// Not an option jest knows: kept off the enumerable keys so jest does not warn about it.
Object.defineProperty(module.exports, 'base', { value: base, enumerable: false });
