import { MRZ_BLOCKS_PER_TURN, MRZ_LOCATOR_BLUR } from '../../calibration/mrz';
import { boundingBox, rotatePoint, type Point, type Quad } from '../../image/geometry';
import { greyVariant, rotateRaster, toPixels, type GreyRaster, type PixelRegion, type RelativeRegion } from '../../image/raster';
import { locateMrzBlocks } from '../mrz-locator';
import type { OcrLine, OcrResult } from '../ocr';
import { measureMrzBand, type MrzBandGeometry } from '../rectify';
import { RECTIFIED } from './variants';

/*
 * Where the zones are: blocks of MRZ-like lines located in a turned image, the crops read around them,
 * and the ways back from a crop's pixels to the image as given.
 */

export interface ZoneCrop extends PixelRegion {
  /** The block was in the top half: the page is upside down at this turn, so the crop is read turned 180°. */
  flipped: boolean;
  /** The crop is read the other way from what its half of the photo said, that reading having shown no MRZ. */
  turned_back?: boolean;
  /** Lines the locator counted in the block. */
  lines: number;
  /** The block's first and last rows and height per line, px of the full-resolution turned image. */
  block_top: number;
  block_bottom: number;
  line_height: number;
}

export interface RelativeZone extends RelativeRegion {
  flipped: boolean;
  lines: number;
  /** The same as shares of the turned image's height. */
  block_top: number;
  block_bottom: number;
  line_height: number;
}

/** An OCR input and the way back from its pixels to the turned image's. */
export interface OcrImage {
  png: Buffer;
  toTurned: (point: Point) => Point;
  /** The reading already made of these pixels (the glyph variant's), instead of an OCR pass. */
  read?: OcrResult;
}

/** A zone straightened by its own lines (`rectifiedZone`), in the pixels of `band` scaled by `scale`. */
export interface RectifiedZone {
  raster: GreyRaster;
  geometry: MrzBandGeometry;
  band: ZoneCrop;
  scale: number;
}

export function zoneQuad(
  lines: readonly OcrLine[],
  image: OcrImage,
  turned: GreyRaster,
  original: GreyRaster,
  angle: number,
): Quad {
  const box = boundingBox(
    lines.flatMap((line) => [
      { x: line.bbox.x0, y: line.bbox.y0 },
      { x: line.bbox.x1, y: line.bbox.y1 },
    ]),
  );
  const toOriginal = (x: number, y: number) => rotatePoint(image.toTurned({ x, y }), -angle, turned, original);
  // Corners named as the page reads (upright), whatever the turn.
  return {
    topLeft: toOriginal(box.left, box.top),
    topRight: toOriginal(box.right, box.top),
    bottomRight: toOriginal(box.right, box.bottom),
    bottomLeft: toOriginal(box.left, box.bottom),
  };
}

/** From the pixels of a crop of `crop` scaled by `scale` (and turned 180° if flipped) to the turned image's. */
export function cropToTurned(crop: PixelRegion & { flipped: boolean }, scale: number): (point: Point) => Point {
  return ({ x, y }) => {
    const local = crop.flipped ? { x: crop.width - x / scale, y: crop.height - y / scale } : { x: x / scale, y: y / scale };
    return { x: crop.left + local.x, y: crop.top + local.y };
  };
}

/**
 * Blocks of two or three MRZ-like lines in the image turned by `angle`, as shares of the turned image
 * (the same at any resolution), nearest an edge first. The analysis turns a copy already at the
 * analysis width: turning the full photo for every angle tried cost more than the analysis itself, and
 * most angles find nothing.
 */
export async function zoneCrops(analysis: GreyRaster, angle: number): Promise<RelativeZone[]> {
  const turned = await rotateRaster(analysis, angle);
  // A slight blur first: a dim photo's sensor noise (σ 4–10 grey levels) otherwise passes for ink
  // between the lines and joins them to the page's text into one block of five (corpus, low light).
  const grey = await greyVariant(turned, { normalise: true, blur: MRZ_LOCATOR_BLUR });
  return (
    locateMrzBlocks(grey)
      // Two or three lines (TD1, TD2, TD3), or four where a line of the page's text joined them.
      .filter((block) => block.lines >= 2 && block.lines <= 4)
      .map((block) => ({ block, flipped: (block.top + block.bottom) / 2 < grey.height / 2 }))
      .sort((a, b) => edgeDistance(a.block, a.flipped, grey.height) - edgeDistance(b.block, b.flipped, grey.height))
      .slice(0, MRZ_BLOCKS_PER_TURN)
      .map(({ block, flipped }) => {
        const lineHeight = (block.bottom - block.top + 1) / block.lines;
        const margin = lineHeight * 1.2;
        const left = Math.max(0, block.left - grey.width * 0.06);
        const right = Math.min(grey.width, block.right + grey.width * 0.06);
        const top = Math.max(0, block.top - margin);
        const bottom = Math.min(grey.height, block.bottom + margin);
        return {
          left: left / grey.width,
          top: top / grey.height,
          width: (right - left) / grey.width,
          height: (bottom - top) / grey.height,
          flipped,
          lines: block.lines,
          block_top: block.top / grey.height,
          block_bottom: (block.bottom + 1) / grey.height,
          line_height: lineHeight / grey.height,
        };
      })
  );
}

/** A relative zone in pixels of the full-resolution turned image. */
export function zonePixels(zone: RelativeZone, turned: GreyRaster): ZoneCrop {
  const pixels = toPixels(zone, turned.width, turned.height);
  return {
    ...pixels,
    flipped: zone.flipped,
    lines: zone.lines,
    block_top: zone.block_top * turned.height,
    block_bottom: zone.block_bottom * turned.height,
    line_height: zone.line_height * turned.height,
  };
}

/**
 * The zone straightened (`rectify.ts`), or null when its lines cannot be traced. The band measured is
 * the crop with two more line heights above and below (a keystoned line's far end leaves the crop, and
 * a line the locator missed lies there).
 */
export async function rectifiedZone(turned: GreyRaster, crop: ZoneCrop): Promise<RectifiedZone | null> {
  const width = RECTIFIED.width;
  const extra = crop.line_height * 2;
  const top = Math.max(0, Math.round(crop.top - extra));
  const bottom = Math.min(turned.height, Math.round(crop.top + crop.height + extra));
  const band: ZoneCrop = { ...crop, top, height: bottom - top };
  const scale = width / band.width;
  const raster = await greyVariant(turned, {
    region: {
      left: band.left / turned.width,
      top: band.top / turned.height,
      width: band.width / turned.width,
      height: band.height / turned.height,
    },
    scale,
    normalise: true,
    upsideDown: band.flipped,
  });
  // The block's top in the band's pixels (the band is read turned 180° when the block is flipped).
  const blockTop = band.flipped ? band.top + band.height - crop.block_bottom : crop.block_top - band.top;
  const lineHeight = crop.line_height * scale;
  // Up to four lines were counted; the MRZ has two or three, and a fourth is the page's own text joined
  // to them above: then the last three lines are traced, else the last two.
  for (const skip of crop.lines === 4 ? [1, 2] : [0]) {
    const geometry = measureMrzBand(raster, {
      top: (blockTop + skip * crop.line_height) * scale,
      lines: crop.lines - skip,
      line_height: lineHeight,
    });
    if (geometry !== null) return { raster, geometry, band, scale };
  }
  return null;
}

function edgeDistance(block: { top: number; bottom: number }, flipped: boolean, height: number): number {
  return flipped ? block.top : height - block.bottom;
}
