import fs from 'node:fs';
import path from 'node:path';

/**
 * Every test file belongs to one tier by its name (jest.preset.js runs `*.unit`, `*.component` and `*.e2e`
 * test files, docs/testing.md): a file with another name would be run by no project, silently.
 */
const ROOT = path.resolve(__dirname, '..', '..', '..');
const TIERED = /\.(unit|component|e2e)\.test\.ts$/;

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return [];
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(file);
    return /\.test\.[cm]?[jt]sx?$/.test(entry.name) ? [path.relative(ROOT, file)] : [];
  });
}

test('every test file is named for its tier', () => {
  const files = ['packages', 'services'].flatMap((group) => testFiles(path.join(ROOT, group)));
  expect(files.length).toBeGreaterThan(100);
  expect(files.filter((file) => !TIERED.test(file))).toEqual([]);
});
