import type { GreyRaster } from '../src/image/raster';
import { textFragments } from '../src/readers/text-fragments';

/** White paper with black bars, each `[left, top, width, height]`. */
function paperWith(width: number, height: number, bars: readonly [number, number, number, number][]): GreyRaster {
  const data = Buffer.alloc(width * height, 235);
  for (const [left, top, barWidth, barHeight] of bars)
    for (let y = top; y < top + barHeight; y += 1) data.fill(20, y * width + left, y * width + left + barWidth);
  return { data, width, height };
}

const WHOLE = { left: 0, top: 0, width: 700, height: 80 };
const SMALL_TEXT = { textPx: 12, maxHeightPx: 40 };

describe('textFragments', () => {
  it('when a patch is wider than the widest line of the print, then it is not text; one as wide as a line is', () => {
    // 60 and 30 times as wide as tall: a card's edge, and a line of text's shape.
    const raster = paperWith(700, 80, [
      [20, 10, 600, 10],
      [20, 50, 300, 10],
    ]);

    const everyPatch = textFragments(raster, WHOLE, SMALL_TEXT);
    const lines = textFragments(raster, WHOLE, { ...SMALL_TEXT, widestAspect: 45 });

    expect(everyPatch.map((patch) => patch.right - patch.left)).toEqual([600, 300]);
    expect(lines.map((patch) => patch.right - patch.left)).toEqual([300]);
  });
});
