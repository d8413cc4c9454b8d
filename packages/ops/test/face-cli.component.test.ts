import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
// The constant alone: the package's index loads the models' runtime.
import { FACE_MATCH_THRESHOLD } from '@idv/faces/pure';

/**
 * `pnpm ops face:compare` and `face:liveness` as support staff run them: the built CLI, offline, one
 * JSON object per line. The photos are face-api's demo photos (MIT, shipped in the npm package that
 * @idv/faces keeps as a devDependency; docs/faces.md).
 */
const CLI = path.resolve(__dirname, '../dist/cli.js');
const FACES = path.resolve(__dirname, '../../faces');
const DEMO = path.join(path.dirname(require.resolve('@vladmandic/face-api', { paths: [FACES] })), '..', 'demo');

jest.setTimeout(60_000);

async function ops(...args: string[]): Promise<{ lines: Record<string, unknown>[]; code: number }> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: build @idv/ops first`);
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args, '--json']);
    return {
      lines: stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
      code: 0,
    };
  } catch (error) {
    const failure = error as { stdout: string; code: number };
    return {
      lines: failure.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
      code: failure.code,
    };
  }
}

describe('pnpm ops face:*', () => {
  it('when one photo is compared with itself, then one line says match with the threshold in use', async () => {
    const photo = path.join(DEMO, 'sample3.jpg');

    const { lines, code } = await ops('face:compare', photo, photo);

    expect(code).toBe(0);
    expect(lines).toEqual([
      expect.objectContaining({ faces: { a: 3, b: 3 }, similarity: 1, threshold: FACE_MATCH_THRESHOLD, decision: 'match' }),
    ]);
  });

  it('when frames show a group, then a line per frame and a verdict line with face_multiple', async () => {
    const frames = ['sample1.jpg', 'sample2.jpg'].map((name) => path.join(DEMO, name));

    const { lines, code } = await ops('face:liveness', '--challenge', 'left,right', ...frames);

    expect(code).toBe(0);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ type: 'frame', index: 0, faces: 3 });
    expect(lines[2]).toMatchObject({ type: 'verdict', passed: false, reason: 'face_multiple', frame_index: 0 });
  });

  it('when a file is not an image, then one error line names it and the exit code is 1', async () => {
    const { lines, code } = await ops('face:compare', path.join(DEMO, 'sample3.jpg'), __filename);

    expect(code).toBe(1);
    expect(lines).toEqual([{ error: `${__filename}: image_unsupported (not a JPEG, PNG or WebP)` }]);
  });
});
