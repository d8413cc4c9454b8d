import { execFileSync } from 'node:child_process';

/**
 * The package's entries as its exports map names them. A service's request path imports `@idv/faces/pure`
 * and must not load the models' runtime (tfjs, human) or sharp with it: those belong in the worker threads.
 * Run in a fresh node process, so nothing this test file loaded counts.
 */
function modulesLoadedBy(specifier: string): string[] {
  const script = `require(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(require.cache)))`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: __dirname, encoding: 'utf8' })) as string[];
}

/** The names an entry exports, read in a fresh node process. */
function namesExportedBy(specifier: string): string[] {
  const script = `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(specifier)}))))`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: __dirname, encoding: 'utf8' })) as string[];
}

const ENGINE_MODULES = /[\\/]node_modules[\\/](@tensorflow|@vladmandic|sharp|tesseract\.js|zxing-wasm)[\\/]/;

describe('the entries of @idv/faces and @idv/verification', () => {
  test.each(['@idv/faces/pure', '@idv/verification/pure'])('%s loads no engine', (entry) => {
    const loaded = modulesLoadedBy(entry);
    expect(loaded.length).toBeGreaterThan(1);
    expect(loaded.filter((file) => ENGINE_MODULES.test(file))).toEqual([]);
  });

  test('the worker entries resolve by their public names, not by dist paths', () => {
    expect(require.resolve('@idv/faces/worker')).toMatch(/worker\.js$/);
    expect(require.resolve('@idv/verification/worker')).toMatch(/worker\.js$/);
  });

  test("the verification's main entry names what the services use; the tooling entry has the rest", () => {
    const main = namesExportedBy('@idv/verification');
    const tooling = namesExportedBy('@idv/verification/tooling');
    expect(main).toEqual(expect.arrayContaining(['prepareUpload', 'combineSides', 'judgeAngledFront', 'blankSideReading']));
    // Run one side at a time and calibrate: the corpus, the CLI and the benchmarks, never a service.
    for (const name of ['readSide', 'readDocument', 'screenScore', 'parseMrz']) {
      expect(main).not.toContain(name);
      expect(tooling).toContain(name);
    }
    expect(tooling).toEqual(expect.arrayContaining(main));
  });

  test('a deep import into dist is refused by the exports map', () => {
    expect(() => require.resolve('@idv/faces/dist/limits')).toThrow(/not defined by "exports"|Cannot find module/);
  });
});
