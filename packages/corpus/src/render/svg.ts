/** Small helpers to write SVG by hand (sharp renders it with librsvg; text goes through fontconfig). */

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The faces the corpus uses; all are Debian packages installed by scripts/ensure-fonts.sh. */
export const FONTS = {
  sans: 'DejaVu Sans',
  sansCondensed: 'DejaVu Sans Condensed',
  arial: 'Liberation Sans',
  serif: 'DejaVu Serif',
  /** ICAO 9303's machine-readable typeface (Debian fonts-ocr-b). */
  ocrB: 'OCR B',
} as const;

export interface TextStyle {
  size: number;
  font?: string;
  weight?: 'normal' | 'bold';
  fill?: string;
  italic?: boolean;
  anchor?: 'start' | 'middle' | 'end';
  /** Extra space between letters, in user units. */
  letterSpacing?: number;
  opacity?: number;
  rotate?: number;
}

export function text(x: number, y: number, content: string, style: TextStyle): string {
  const attributes = [
    `x="${fmt(x)}"`,
    `y="${fmt(y)}"`,
    `font-family="${style.font ?? FONTS.sans}"`,
    `font-size="${fmt(style.size)}"`,
    `fill="${style.fill ?? '#1a1a1a'}"`,
    'xml:space="preserve"',
  ];
  if (style.weight === 'bold') attributes.push('font-weight="bold"');
  if (style.italic === true) attributes.push('font-style="italic"');
  if (style.anchor !== undefined && style.anchor !== 'start') attributes.push(`text-anchor="${style.anchor}"`);
  if (style.letterSpacing !== undefined) attributes.push(`letter-spacing="${fmt(style.letterSpacing)}"`);
  if (style.opacity !== undefined) attributes.push(`opacity="${fmt(style.opacity)}"`);
  if (style.rotate !== undefined) attributes.push(`transform="rotate(${fmt(style.rotate)} ${fmt(x)} ${fmt(y)})"`);
  return `<text ${attributes.join(' ')}>${escapeXml(content)}</text>`;
}

export function rect(x: number, y: number, width: number, height: number, fill: string, extra = ''): string {
  return `<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(width)}" height="${fmt(height)}" fill="${fill}" ${extra}/>`;
}

/** Numbers with at most two decimals, so the SVG (and the raster) is the same on every run. */
export function fmt(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** Wraps an inner SVG document (a barcode from bwip-js) into a box of the outer one. */
export function nestSvg(inner: string, x: number, y: number, width: number, height: number): string {
  const viewBox = /viewBox="([^"]+)"/.exec(inner)?.[1];
  const body = inner.replace(/^[\s\S]*?<svg[^>]*>/, '').replace(/<\/svg>\s*$/, '');
  if (viewBox === undefined) throw new Error('the nested SVG has no viewBox');
  return `<svg x="${fmt(x)}" y="${fmt(y)}" width="${fmt(width)}" height="${fmt(height)}" viewBox="${viewBox}" preserveAspectRatio="none" shape-rendering="crispEdges">${body}</svg>`;
}
