/**
 * The unit tier alone (`pnpm test:unit`): every package's `*.unit.test.ts`, pure, with no global setup, so
 * it needs no PostgreSQL, RabbitMQ, Redis or started service. `scripts/test.sh` runs every tier.
 */
const { base, projectsOf } = require('./jest.preset.js');

module.exports = {
  testTimeout: base.testTimeout,
  projects: projectsOf(__dirname, 'unit'),
};
