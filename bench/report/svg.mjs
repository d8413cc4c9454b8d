// A small SVG line-chart writer for the load report: one panel per quantity, each a set of named series of
// (load, value) points on linear axes with round ticks. No dependency; the output is plain SVG text.

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
const escape = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Ticks at 1, 2 or 5 × a power of ten, about `count` of them, covering [0, max]. */
function ticks(max, count = 5) {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const out = [];
  for (let v = 0; v <= max + step * 0.001; v += step) out.push(Number(v.toPrecision(12)));
  if (out[out.length - 1] < max) out.push(Number((out[out.length - 1] + step).toPrecision(12)));
  return out;
}

const label = (value) => (Math.abs(value) >= 10_000 ? `${Math.round(value / 1000)}k` : String(Number(value.toPrecision(4))));

/**
 * One panel: `series` is [{ name, points: [[x, y], …] }]; points with a null or non-finite y are left out.
 * Returns the SVG elements of the panel, placed at (left, top) with the given size.
 */
function panel({ title, xLabel, yLabel, series }, { left, top, width, height }) {
  const margin = { left: 56, right: 12, top: 28, bottom: 40 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const clean = series.map((s) => ({ ...s, points: s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)) }));
  const xs = clean.flatMap((s) => s.points.map(([x]) => x));
  const ys = clean.flatMap((s) => s.points.map(([, y]) => y));
  const xTicks = ticks(Math.max(...xs, 1));
  const yTicks = ticks(Math.max(...ys, 0) * 1.05);
  const xMax = xTicks[xTicks.length - 1];
  const yMax = yTicks[yTicks.length - 1];
  const px = (x) => left + margin.left + (x / xMax) * plotW;
  const py = (y) => top + margin.top + plotH - (y / yMax) * plotH;
  const parts = [];
  parts.push(`<text x="${left + width / 2}" y="${top + 16}" text-anchor="middle" font-weight="bold">${escape(title)}</text>`);
  for (const y of yTicks) {
    parts.push(`<line x1="${px(0)}" y1="${py(y)}" x2="${px(xMax)}" y2="${py(y)}" stroke="#e0e0e0"/>`);
    parts.push(`<text x="${px(0) - 6}" y="${py(y) + 4}" text-anchor="end">${label(y)}</text>`);
  }
  for (const x of xTicks) {
    parts.push(`<line x1="${px(x)}" y1="${py(0)}" x2="${px(x)}" y2="${py(0) + 4}" stroke="#333"/>`);
    parts.push(`<text x="${px(x)}" y="${py(0) + 16}" text-anchor="middle">${label(x)}</text>`);
  }
  parts.push(`<line x1="${px(0)}" y1="${py(0)}" x2="${px(xMax)}" y2="${py(0)}" stroke="#333"/>`);
  parts.push(`<line x1="${px(0)}" y1="${py(0)}" x2="${px(0)}" y2="${py(yMax)}" stroke="#333"/>`);
  parts.push(`<text x="${px(xMax / 2)}" y="${top + height - 6}" text-anchor="middle">${escape(xLabel)}</text>`);
  const yMid = top + margin.top + plotH / 2;
  parts.push(
    `<text x="${left + 12}" y="${yMid}" text-anchor="middle" transform="rotate(-90 ${left + 12} ${yMid})">${escape(yLabel)}</text>`,
  );
  clean.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const sorted = [...s.points].sort((a, b) => a[0] - b[0]);
    if (sorted.length > 1) {
      const d = sorted.map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
      parts.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    }
    for (const [x, y] of sorted) parts.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${colour}"/>`);
    const legendY = top + margin.top + 4 + i * 15;
    parts.push(`<rect x="${px(0) + 8}" y="${legendY}" width="10" height="10" fill="${colour}"/>`);
    parts.push(`<text x="${px(0) + 22}" y="${legendY + 9}">${escape(s.name)}</text>`);
  });
  return parts.join('\n');
}

/** Panels side by side in one SVG document. */
export function chart(panels, { panelWidth = 420, height = 300 } = {}) {
  const width = panelWidth * panels.length;
  const body = panels.map((p, i) => panel(p, { left: i * panelWidth, top: 0, width: panelWidth, height })).join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">
<rect width="100%" height="100%" fill="white"/>
${body}
</svg>
`;
}
