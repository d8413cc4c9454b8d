import { GLYPH_CELL_PX, MRZ_MIN_DEBLUR_SIGMA } from '../../calibration/mrz';
import type { Point } from '../../image/geometry';
import { edgeBlurSigma, wienerDeblurBoth } from '../../image/deconvolve';
import { greyVariant, pngVariant, type GreyRaster } from '../../image/raster';
import { readMrzGlyphs, type GlyphLineLayout } from '../mrz-glyphs';
import { applyHomography, levelMrzLines, rectifyMrzBand } from '../rectify';
import { DEBLURRED } from './variants';
import { cropToTurned, type OcrImage, type RectifiedZone } from './zones';

/**
 * The zone straightened at a width that gives its cells `GLYPH_CELL_PX` and read by matching OCR-B's
 * glyphs (`readMrzGlyphs`): three lines hold 30 characters; two hold 44 (TD3) or 36 (TD2), and the
 * glyphs decide which. Null when the lines cannot be laid out as cells.
 */
export async function glyphImage(rectified: RectifiedZone): Promise<OcrImage | null> {
  const lengths = rectified.geometry.lines.length >= 3 ? [30] : [44, 36];
  // The ink spans the line less a side bearing at each end; the band keeps 4% margins on each side.
  const width = Math.round((Math.max(...lengths) * GLYPH_CELL_PX) / 0.92);
  const image = rectifyMrzBand(rectified.raster, rectified.geometry, width);
  if (image === null) return null;
  const bandToTurned = cropToTurned(rectified.band, rectified.scale);
  return glyphRead(image.raster, image.lines, lengths, (point) => bandToTurned(applyHomography(image.toBand, point)), false);
}

/**
 * The glyph variant of a zone whose lines could not be traced (`measureMrzBand`: a zone blurred until
 * its lines run into each other), read from the plain crop with its lines taken as level
 * (`levelMrzLines`) and each line's slant fitted by the glyphs themselves. Two lines are read as a TD3's 44
 * characters only.
 */
export async function levelGlyphImage(
  zone: GreyRaster,
  block: { top: number; bottom: number; lines: number },
  toTurned: (point: Point) => Point,
): Promise<OcrImage | null> {
  if (block.lines < 2 || block.lines > 3) return null;
  const lineHeight = (block.bottom - block.top) / block.lines;
  const layouts = levelMrzLines(zone, { top: block.top, lines: block.lines, line_height: lineHeight });
  if (layouts === null) return null;
  const length = block.lines >= 3 ? 30 : 44;
  const span = Math.max(...layouts.map((line) => line.right - line.left));
  // At the OCR's width a cell is larger than the glyph variant's: brought down to it, as the rectified band is.
  const scale = Math.min(1, (GLYPH_CELL_PX * length) / Math.max(1, span));
  const raster = scale < 1 ? await greyVariant(zone, { scale }) : zone;
  const scaled = layouts.map((line) => ({ centreY: line.centreY * scale, left: line.left * scale, right: line.right * scale }));
  return glyphRead(raster, scaled, [length], (point) => toTurned({ x: point.x / scale, y: point.y / scale }), true);
}

/** The band read by glyphs, and what the other engine is shown of it: the band with its blur undone. */
async function glyphRead(
  band: GreyRaster,
  layouts: readonly GlyphLineLayout[],
  lengths: readonly number[],
  toTurned: (point: Point) => Point,
  level: boolean,
): Promise<OcrImage | null> {
  const sigma = edgeBlurSigma(band).sigma;
  const read = readMrzGlyphs(band, layouts, lengths, sigma, { level });
  if (read === null) return null;
  const shown = sigma < MRZ_MIN_DEBLUR_SIGMA ? band : wienerDeblurBoth(band, sigma, DEBLURRED.deblur?.noise ?? 0.01);
  return { png: await pngVariant(shown), toTurned, read };
}
