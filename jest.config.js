/**
 * The whole test suite in one jest run: every package and service as one project per tier (unit, component,
 * e2e; jest.preset.js) and one stack started by the global setup for the tiers that need it.
 * `pnpm test:unit` (jest.unit.config.js) runs the unit tier alone, without the stack.
 */
const { base, TIERS, projectsOf } = require('./jest.preset.js');

module.exports = {
  testTimeout: base.testTimeout,
  // Longest files first, also on a machine that never ran the suite (scripts/jest-sequencer.js).
  testSequencer: '<rootDir>/scripts/jest-sequencer.js',
  projects: projectsOf(__dirname, ...TIERS),
};
