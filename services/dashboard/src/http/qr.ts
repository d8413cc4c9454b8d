import QRCode from 'qrcode';

/** A QR code as inline SVG: the page needs no image request (strict CSP) and works without JavaScript. */
export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 });
}
