/** The whole test suite in one jest run: one stack (global setup), every package as a project. */
const fs = require('node:fs');
const path = require('node:path');
const { base, globalSetup, globalTeardown } = require('./jest.preset.js');

const dirs = ['packages', 'services'].flatMap((group) =>
  fs.readdirSync(path.join(__dirname, group)).map((name) => path.join(__dirname, group, name)),
);

module.exports = {
  testTimeout: base.testTimeout,
  globalSetup,
  globalTeardown,
  projects: dirs
    .filter((dir) => fs.existsSync(path.join(dir, 'package.json')))
    .map((dir) => ({ ...base, displayName: path.basename(dir), rootDir: dir })),
};
