import type { GreyRaster } from '../src/image/raster';
import {
  applyHomography,
  homographyBetween,
  measureMrzBand,
  rectifyMrzBand,
  warpGrey,
  type Homography,
} from '../src/readers/rectify';

/**
 * A flat MRZ-like band: `lines` rows of 30 glyphs (two strokes and a bar, about OCR-B's proportions)
 * on white, 1200 px wide, a line pitch of 60 px.
 */
function flatBand(lines = 3): { band: GreyRaster; firstLineCentre: number; pitch: number; left: number; right: number } {
  const width = 1200;
  const height = 320;
  const pitch = 60;
  const glyphWidth = 22;
  const glyphHeight = 34;
  const advance = 34;
  const left = 90;
  const data = Buffer.alloc(width * height, 235);
  const firstLineCentre = 100;
  for (let line = 0; line < lines; line += 1) {
    const top = Math.round(firstLineCentre + line * pitch - glyphHeight / 2);
    for (let glyph = 0; glyph < 30; glyph += 1) {
      const x0 = left + glyph * advance;
      for (let y = top; y < top + glyphHeight; y += 1) {
        for (let x = x0; x < x0 + glyphWidth; x += 1) {
          const stroke = x - x0 < 5 || x0 + glyphWidth - x <= 5 || Math.abs(y - (top + glyphHeight / 2)) < 3;
          if (stroke) data[y * width + x] = 30;
        }
      }
    }
  }
  return { band: { data, width, height }, firstLineCentre, pitch, left, right: left + 29 * advance + glyphWidth - 1 };
}

/** The flat band as a camera sees it turned about its vertical axis: the right end smaller, lines converging. */
function keystoned(band: GreyRaster): GreyRaster {
  const { width, height } = band;
  const seen = {
    topLeft: { x: 30, y: 10 },
    topRight: { x: width - 60, y: 60 },
    bottomRight: { x: width - 40, y: height - 70 },
    bottomLeft: { x: 10, y: height - 5 },
  };
  const flat = {
    topLeft: { x: 0, y: 0 },
    topRight: { x: width, y: 0 },
    bottomRight: { x: width, y: height },
    bottomLeft: { x: 0, y: height },
  };
  // warpGrey takes the map from output pixels back to the source's.
  const toFlat = homographyBetween(seen, flat);
  if (toFlat === null) throw new Error('no homography');
  return warpGrey(band, toFlat, width, height);
}

describe('homographyBetween', () => {
  it('when four corners are given, then each maps onto its counterpart and the middle onto the middle', () => {
    const from = {
      topLeft: { x: 0, y: 0 },
      topRight: { x: 100, y: 0 },
      bottomRight: { x: 100, y: 50 },
      bottomLeft: { x: 0, y: 50 },
    };
    const to = {
      topLeft: { x: 10, y: 5 },
      topRight: { x: 90, y: 20 },
      bottomRight: { x: 95, y: 40 },
      bottomLeft: { x: 5, y: 60 },
    };

    const h = homographyBetween(from, to) as Homography;

    for (const corner of ['topLeft', 'topRight', 'bottomRight', 'bottomLeft'] as const) {
      const mapped = applyHomography(h, from[corner]);
      expect(mapped.x).toBeCloseTo(to[corner].x, 6);
      expect(mapped.y).toBeCloseTo(to[corner].y, 6);
    }
  });

  it('when three corners are collinear, then there is no homography', () => {
    const degenerate = {
      topLeft: { x: 0, y: 0 },
      topRight: { x: 50, y: 0 },
      bottomRight: { x: 100, y: 0 },
      bottomLeft: { x: 0, y: 50 },
    };

    expect(homographyBetween(degenerate, degenerate)).toBeNull();
  });
});

describe('measureMrzBand', () => {
  it('when the band is flat, then its three lines are found level, parallel and of one length', () => {
    const { band, firstLineCentre, pitch, left, right } = flatBand();

    const geometry = measureMrzBand(band, { top: firstLineCentre - pitch / 2, lines: 3, line_height: pitch });

    expect(geometry).not.toBeNull();
    expect(geometry?.lines).toHaveLength(3);
    expect(geometry?.pitch).toBeCloseTo(pitch, 0);
    expect(geometry?.convergence_deg).toBeLessThan(0.2);
    expect(Math.abs(geometry?.tilt_deg ?? 99)).toBeLessThan(0.2);
    expect(Math.abs((geometry?.lines[0]?.left ?? 0) - left)).toBeLessThanOrEqual(2);
    expect(Math.abs((geometry?.lines[2]?.right ?? 0) - right)).toBeLessThanOrEqual(2);
  });

  it('when the locator counted only two of three lines, then the third, one pitch below, is traced too', () => {
    const { band, firstLineCentre, pitch } = flatBand();

    const geometry = measureMrzBand(band, { top: firstLineCentre - pitch / 2, lines: 2, line_height: pitch * 0.9 });

    expect(geometry?.lines).toHaveLength(3);
  });

  it('when the band is blank, then nothing is measured', () => {
    const blank = { data: Buffer.alloc(1200 * 300, 235), width: 1200, height: 300 };

    expect(measureMrzBand(blank, { top: 100, lines: 2, line_height: 50 })).toBeNull();
  });
});

describe('rectifyMrzBand', () => {
  it('when the band is keystoned, then its lines converge, and once rectified they are level, parallel and of one length', () => {
    const { band, firstLineCentre, pitch } = flatBand();
    const seen = keystoned(band);
    // Where the locator would put the block: about the band's middle rows.
    const block = { top: firstLineCentre - pitch / 2 + 10, lines: 3, line_height: pitch * 0.85 };

    const before = measureMrzBand(seen, block);
    expect(before).not.toBeNull();
    expect(before?.convergence_deg).toBeGreaterThan(1.5);
    const rectified = before === null ? null : rectifyMrzBand(seen, before, 1200);
    expect(rectified).not.toBeNull();
    const raster = rectified?.raster as GreyRaster;
    const pitchOut = raster.height / 4;
    const after = measureMrzBand(raster, { top: pitchOut / 2, lines: 3, line_height: pitchOut });

    expect(after).not.toBeNull();
    expect(after?.convergence_deg).toBeLessThan(0.3);
    expect(Math.abs(after?.tilt_deg ?? 99)).toBeLessThan(0.3);
    expect(after?.length_ratio).toBeLessThan(1.02);
  });
});
