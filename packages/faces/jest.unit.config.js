/**
 * Unit tests only, without the stack the shared preset starts in its global setup (they need none).
 * `scripts/test.sh` still runs these files: the root config takes every package's test/ folder.
 */
const { base } = require('../../jest.preset.js');

module.exports = { ...base, testMatch: ['<rootDir>/test/**/*.unit.test.ts'] };
