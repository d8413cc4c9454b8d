import fs from 'node:fs';
import path from 'node:path';
import { assessQuality, prepareUpload, readSide, stopEngines } from '@idv/verification/tooling';
import { corpusPage } from './pages';

afterAll(async () => {
  await stopEngines();
});

// The built package, which these tests import, assesses a side's quality on a helper thread beside its
// first stages (packages/verification/src/pipeline/quality-thread.ts); it must say what the same
// assessment made in the reading thread says, for each of several sides read at once.
describe('the quality assessment on its helper thread', () => {
  it('when three sides are read at once, then each gets its own assessment, equal to one made in this thread', async () => {
    const helper = path.join(path.dirname(require.resolve('@idv/verification')), 'pipeline', 'quality-thread.worker.js');
    expect(fs.existsSync(helper)).toBe(true);
    // Seed 42: a screen recapture (48), a genuine clean card (0) and a blurred one (54).
    const pages = await Promise.all([corpusPage(42, 48), corpusPage(42, 0), corpusPage(42, 54)]);

    const readings = await Promise.all(
      pages.map((page) =>
        readSide(page.image, { side: 'front', acceptedTypes: ['dni', 'passport'], today: page.label.reference_date }),
      ),
    );

    const inThread = [];
    for (const page of pages) {
      const prepared = await prepareUpload(page.image);
      if (!prepared.ok) throw new Error('the corpus page could not be prepared');
      inThread.push(await assessQuality(prepared));
    }
    expect(readings.map((reading) => reading.quality)).toEqual(inThread);
    expect(readings[0]?.quality.screen.detected).toBe(true);
    expect(readings[1]?.quality.screen.detected).toBe(false);
    expect(readings[2]?.quality.problems).toContain('blurry');
  }, 120_000);
});
