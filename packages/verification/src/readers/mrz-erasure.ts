import * as mrzCalibration from '../calibration/mrz';
import type { GreyRaster } from '../image/raster';

// Copied into a module constant: compiled to CommonJS, each use of an imported constant is a property
// read, and the loop below runs per pixel.
const { ERASURE_INK_BELOW: INK_BELOW } = mrzCalibration;

/**
 * How much of an MRZ a glare erased, from the zone's crop alone: an MRZ line has no spaces (a name's
 * spaces and the line's end are `<` fillers, ink like any character), so the only stretch of a line
 * without ink wider than the gap between two characters is ink the photo lost. A glare lifts it to
 * the paper's white over a few characters of one or two lines (corpus seeds 42, 7 and 99: 3.5–6.2
 * characters on the three zones a glare made unreadable); between the characters of a clean, blurred,
 * dim or angled zone the widest is 0.4–2.5 (the characters' own gaps, a `<` whose thin strokes
 * the stretch leaves grey); docs/documents.md "What each side yields".
 *
 * The crop is the zone at the OCR's width, stretched to the full range. Each of the block's
 * `band.lines` is an equal share of the rows `band.top`…`band.bottom`. Where the text runs is the
 * longest run of ink over the lines (gaps under half a line's height bridged: a card's edge or the
 * photo's background beside the zone is a run of its own), and the longest stretch without ink inside
 * it, on any line, is measured in characters of that run (`charactersPerLine` of them).
 */
export function erasedCharacters(
  zone: GreyRaster,
  band: { top: number; bottom: number; lines: number },
  charactersPerLine: number,
): number {
  const { width, height, data } = zone;
  const lines: Uint8Array[] = [];
  // The longest run of ink so far (none yet: empty).
  const text = { start: 0, end: 0 };
  const keepLonger = (start: number, end: number) => {
    if (end - start > text.end - text.start) Object.assign(text, { start, end });
  };
  for (let line = 0; line < band.lines; line += 1) {
    const top = Math.max(0, Math.round(band.top + ((band.bottom - band.top) * line) / band.lines));
    const bottom = Math.min(height, Math.round(band.top + ((band.bottom - band.top) * (line + 1)) / band.lines));
    const inked = new Uint8Array(width);
    for (let x = 0; x < width; x += 1) {
      for (let y = top; y < bottom; y += 1) {
        if ((data[y * width + x] ?? 255) < INK_BELOW) {
          inked[x] = 1;
          break;
        }
      }
    }
    lines.push(inked);
    const bridge = Math.max(2, Math.round((bottom - top) / 2));
    let start = -1;
    let lastInk = -1;
    for (let x = 0; x < width; x += 1) {
      if (inked[x] !== 1) continue;
      if (start !== -1 && x - lastInk > bridge) {
        keepLonger(start, lastInk);
        start = x;
      }
      if (start === -1) start = x;
      lastInk = x;
    }
    if (start !== -1) keepLonger(start, lastInk);
  }
  if (text.end <= text.start) return 0;
  const pitch = (text.end - text.start) / charactersPerLine;
  let widest = 0;
  for (const inked of lines) {
    let run = 0;
    for (let x = text.start; x <= text.end; x += 1) {
      run = inked[x] === 1 ? 0 : run + 1;
      widest = Math.max(widest, run);
    }
  }
  return widest / pitch;
}
