import type { Random } from '../random';
import { fmt } from './svg';

/**
 * The pictorial parts of a card, drawn procedurally: a face-like portrait (a later issue brings real face
 * images), a signature, guilloche security lines, a coat-of-arms medallion and a fingerprint. They give the
 * reader what real cards give it (edges, texture, fine periodic-looking lines that are not a screen) so
 * that quality and recapture measures are calibrated on something card-like rather than on flat colour.
 */

const SKIN_TONES = ['#f1c7a5', '#e0ac85', '#c68c63', '#a8704a', '#8a5634', '#f5d3bb', '#d9a07a'] as const;
const HAIR_COLOURS = ['#1c1410', '#3b2618', '#6b4a2b', '#a37a4c', '#c9b28a', '#8c8c8c', '#2a2a2a'] as const;
const CLOTHES = ['#1f2a44', '#3c3c3c', '#6a1f2b', '#2f4f3a', '#d9d9d9', '#111111', '#4b5d7a'] as const;
const BACKDROPS = ['#e8eef2', '#dfe6ea', '#f0f0ec', '#e4e9f0'] as const;

export function portrait(random: Random, x: number, y: number, width: number, height: number, greyscale = false): string {
  const skin = random.pick(SKIN_TONES);
  const hair = random.pick(HAIR_COLOURS);
  const clothes = random.pick(CLOTHES);
  const cx = x + width / 2 + random.uniform(-0.03, 0.03) * width;
  const headRx = width * random.uniform(0.21, 0.26);
  const headRy = height * random.uniform(0.22, 0.26);
  const cy = y + height * random.uniform(0.4, 0.45);
  const eyeY = cy - headRy * 0.12;
  const eyeDx = headRx * random.uniform(0.36, 0.44);
  const eyeR = headRx * 0.09;
  const hairStyle = random.int(0, 3);
  const parts: string[] = [];
  parts.push(
    `<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(width)}" height="${fmt(height)}" fill="${random.pick(BACKDROPS)}"/>`,
  );
  if (hairStyle === 2) {
    // Long hair behind the shoulders.
    parts.push(
      `<path d="M${fmt(cx - headRx * 1.15)} ${fmt(cy - headRy * 0.3)} Q${fmt(cx)} ${fmt(cy - headRy * 1.45)} ${fmt(cx + headRx * 1.15)} ${fmt(cy - headRy * 0.3)} L${fmt(cx + headRx * 1.3)} ${fmt(cy + headRy * 1.5)} L${fmt(cx - headRx * 1.3)} ${fmt(cy + headRy * 1.5)} Z" fill="${hair}"/>`,
    );
  }
  const shoulderTop = cy + headRy * 1.15;
  parts.push(
    `<path d="M${fmt(x)} ${fmt(y + height)} Q${fmt(x + width * 0.05)} ${fmt(shoulderTop)} ${fmt(cx)} ${fmt(shoulderTop - headRy * 0.1)} Q${fmt(x + width * 0.95)} ${fmt(shoulderTop)} ${fmt(x + width)} ${fmt(y + height)} Z" fill="${clothes}"/>`,
  );
  parts.push(
    `<rect x="${fmt(cx - headRx * 0.38)}" y="${fmt(cy + headRy * 0.6)}" width="${fmt(headRx * 0.76)}" height="${fmt(headRy * 0.7)}" fill="${skin}"/>`,
  );
  parts.push(`<ellipse cx="${fmt(cx)}" cy="${fmt(cy)}" rx="${fmt(headRx)}" ry="${fmt(headRy)}" fill="${skin}"/>`);
  if (hairStyle !== 3) {
    parts.push(
      `<path d="M${fmt(cx - headRx * 1.02)} ${fmt(cy - headRy * 0.05)} Q${fmt(cx - headRx)} ${fmt(cy - headRy * 1.25)} ${fmt(cx)} ${fmt(cy - headRy * 1.08)} Q${fmt(cx + headRx)} ${fmt(cy - headRy * 1.25)} ${fmt(cx + headRx * 1.02)} ${fmt(cy - headRy * 0.05)} Q${fmt(cx + headRx * 0.6)} ${fmt(cy - headRy * random.uniform(0.55, 0.8))} ${fmt(cx)} ${fmt(cy - headRy * 0.62)} Q${fmt(cx - headRx * 0.6)} ${fmt(cy - headRy * random.uniform(0.55, 0.8))} ${fmt(cx - headRx * 1.02)} ${fmt(cy - headRy * 0.05)} Z" fill="${hair}"/>`,
    );
  }
  for (const side of [-1, 1]) {
    const ex = cx + side * eyeDx;
    parts.push(`<ellipse cx="${fmt(ex)}" cy="${fmt(eyeY)}" rx="${fmt(eyeR * 1.6)}" ry="${fmt(eyeR)}" fill="#f8f8f4"/>`);
    parts.push(`<circle cx="${fmt(ex)}" cy="${fmt(eyeY)}" r="${fmt(eyeR * 0.75)}" fill="#3a2a1e"/>`);
    parts.push(
      `<path d="M${fmt(ex - eyeR * 2)} ${fmt(eyeY - eyeR * 2)} Q${fmt(ex)} ${fmt(eyeY - eyeR * 3)} ${fmt(ex + eyeR * 2)} ${fmt(eyeY - eyeR * 2.1)}" stroke="${hair}" stroke-width="${fmt(eyeR * 0.6)}" fill="none"/>`,
    );
  }
  parts.push(
    `<path d="M${fmt(cx)} ${fmt(eyeY + eyeR)} L${fmt(cx - eyeR * 1.1)} ${fmt(cy + headRy * 0.3)} L${fmt(cx + eyeR * 0.6)} ${fmt(cy + headRy * 0.32)}" stroke="#00000055" stroke-width="${fmt(eyeR * 0.35)}" fill="none"/>`,
  );
  const mouthY = cy + headRy * random.uniform(0.5, 0.58);
  parts.push(
    `<path d="M${fmt(cx - headRx * 0.3)} ${fmt(mouthY)} Q${fmt(cx)} ${fmt(mouthY + headRy * random.uniform(0.02, 0.12))} ${fmt(cx + headRx * 0.3)} ${fmt(mouthY)}" stroke="#8a3b3b" stroke-width="${fmt(eyeR * 0.55)}" fill="none"/>`,
  );
  const group = parts.join('');
  return greyscale ? `<g filter="url(#greyscale)" opacity="0.35">${group}</g>` : group;
}

/** A colour-matrix filter that the ghost portrait uses; add once per document in `<defs>`. */
export const GREYSCALE_FILTER =
  '<filter id="greyscale"><feColorMatrix type="matrix" values="0.33 0.33 0.33 0 0 0.33 0.33 0.33 0 0 0.33 0.33 0.33 0 0 0 0 0 1 0"/></filter>';

export function signature(random: Random, x: number, y: number, width: number, height: number): string {
  let d = `M${fmt(x)} ${fmt(y + height * random.uniform(0.3, 0.7))}`;
  const strokes = random.int(5, 9);
  for (let index = 1; index <= strokes; index += 1) {
    const px = x + (width * index) / strokes;
    d += ` C${fmt(px - width / strokes / 2)} ${fmt(y + random.uniform(-0.2, 1.2) * height)} ${fmt(px - width / strokes / 3)} ${fmt(
      y + random.uniform(-0.2, 1.2) * height,
    )} ${fmt(px)} ${fmt(y + random.uniform(0.1, 0.9) * height)}`;
  }
  return `<path d="${d}" stroke="#1b1f4a" stroke-width="${fmt(height * 0.045)}" fill="none" stroke-linecap="round"/>`;
}

/**
 * Guilloche: families of sine waves with slowly drifting phase, drawn in pale ink over the card. Their
 * wavelengths are long compared with a screen's pixel grid; real cards carry such lines, so the recapture
 * detector must not take them for a screen.
 */
export function guilloche(random: Random, width: number, height: number, colours: readonly string[], opacity: number): string {
  const parts: string[] = [];
  const families = random.int(2, 3);
  for (let family = 0; family < families; family += 1) {
    const colour = random.pick(colours);
    const wavelength = random.uniform(60, 160);
    const amplitude = random.uniform(8, 30);
    const lines = random.int(10, 18);
    const spacing = height / lines;
    const drift = random.uniform(0.05, 0.4);
    const secondWavelength = random.uniform(200, 500);
    for (let line = 0; line < lines; line += 1) {
      const base = line * spacing + random.uniform(0, spacing);
      let d = '';
      for (let x = -10; x <= width + 10; x += 6) {
        const y =
          base +
          amplitude * Math.sin((2 * Math.PI * x) / wavelength + line * drift) +
          amplitude * 0.5 * Math.sin((2 * Math.PI * x) / secondWavelength + line);
        d += `${d === '' ? 'M' : 'L'}${fmt(x)} ${fmt(y)}`;
      }
      parts.push(`<path d="${d}" stroke="${colour}" stroke-width="1.1" fill="none" opacity="${fmt(opacity)}"/>`);
    }
  }
  return parts.join('');
}

/** An epicycloid rosette, the round guilloche printed on IDs and banknotes. */
export function rosette(random: Random, cx: number, cy: number, radius: number, colour: string, opacity: number): string {
  const lobes = random.int(9, 17);
  const inner = radius * random.uniform(0.35, 0.6);
  const rings = random.int(3, 6);
  const parts: string[] = [];
  for (let ring = 0; ring < rings; ring += 1) {
    const scale = 1 - ring * 0.12;
    let d = '';
    for (let step = 0; step <= 360; step += 1) {
      const angle = (step * Math.PI) / 180;
      const r = scale * (inner + (radius - inner) * (0.5 + 0.5 * Math.cos(lobes * angle + ring)));
      d += `${d === '' ? 'M' : 'L'}${fmt(cx + r * Math.cos(angle))} ${fmt(cy + r * Math.sin(angle))}`;
    }
    parts.push(`<path d="${d}Z" stroke="${colour}" stroke-width="1" fill="none" opacity="${fmt(opacity)}"/>`);
  }
  return parts.join('');
}

/** A medallion standing in for the national coat of arms: an oval with a rising sun and two hands. */
export function coatOfArms(cx: number, cy: number, size: number, colour: string): string {
  return [
    `<ellipse cx="${fmt(cx)}" cy="${fmt(cy)}" rx="${fmt(size * 0.38)}" ry="${fmt(size * 0.48)}" fill="none" stroke="${colour}" stroke-width="${fmt(size * 0.05)}"/>`,
    `<line x1="${fmt(cx - size * 0.36)}" y1="${fmt(cy)}" x2="${fmt(cx + size * 0.36)}" y2="${fmt(cy)}" stroke="${colour}" stroke-width="${fmt(size * 0.04)}"/>`,
    `<circle cx="${fmt(cx)}" cy="${fmt(cy - size * 0.55)}" r="${fmt(size * 0.14)}" fill="${colour}"/>`,
    `<rect x="${fmt(cx - size * 0.03)}" y="${fmt(cy - size * 0.3)}" width="${fmt(size * 0.06)}" height="${fmt(size * 0.55)}" fill="${colour}"/>`,
  ].join('');
}

export function fingerprint(random: Random, x: number, y: number, width: number, height: number): string {
  const cx = x + width / 2 + random.uniform(-0.05, 0.05) * width;
  const cy = y + height / 2 + random.uniform(-0.05, 0.05) * height;
  const parts: string[] = [];
  const rings = 14;
  for (let ring = 1; ring <= rings; ring += 1) {
    const rx = (width * 0.45 * ring) / rings;
    const ry = (height * 0.45 * ring) / rings;
    let d = '';
    const wobble = random.uniform(0, Math.PI * 2);
    for (let step = 0; step <= 72; step += 1) {
      const angle = (step / 72) * Math.PI * 2;
      const r = 1 + 0.06 * Math.sin(3 * angle + wobble + ring * 0.4);
      d += `${d === '' ? 'M' : 'L'}${fmt(cx + rx * r * Math.cos(angle))} ${fmt(cy + ry * r * Math.sin(angle))}`;
    }
    parts.push(`<path d="${d}" stroke="#3a3a3a" stroke-width="${fmt(width * 0.012)}" fill="none" opacity="0.75"/>`);
  }
  return parts.join('');
}

/**
 * The 2012 DNI's round seal, printed in a dark blue-green over the left end of the issue and expiry dates
 * (the RENAPER specimen): two rings of fine text-like dashes, a rosette of fine lines and a sun in the
 * middle. Its ink is darker than the labels in grey, but coloured where the print is neutral.
 */
export function seal(random: Random, cx: number, cy: number, radius: number): string {
  const colour = '#2d5666';
  const parts: string[] = [
    `<circle cx="${fmt(cx)}" cy="${fmt(cy)}" r="${fmt(radius)}" fill="none" stroke="${colour}" stroke-width="2" opacity="0.8"/>`,
    `<circle cx="${fmt(cx)}" cy="${fmt(cy)}" r="${fmt(radius * 0.72)}" fill="none" stroke="${colour}" stroke-width="1.5" opacity="0.8"/>`,
  ];
  // The ring of lettering between the two circles, as short dashes of random length.
  const dashRadius = radius * 0.86;
  for (let angle = 0; angle < 360; angle += random.uniform(6, 10)) {
    const length = random.uniform(2, 5);
    const radians = (angle * Math.PI) / 180;
    const x = cx + dashRadius * Math.cos(radians);
    const y = cy + dashRadius * Math.sin(radians);
    parts.push(
      `<rect x="${fmt(x - length / 2)}" y="${fmt(y - 4)}" width="${fmt(length)}" height="8" fill="${colour}" opacity="0.75" transform="rotate(${fmt(angle + 90)} ${fmt(x)} ${fmt(y)})"/>`,
    );
  }
  parts.push(rosette(random, cx, cy, radius * 0.66, colour, 0.55));
  parts.push(`<circle cx="${fmt(cx)}" cy="${fmt(cy)}" r="${fmt(radius * 0.16)}" fill="${colour}" opacity="0.6"/>`);
  return parts.join('');
}
