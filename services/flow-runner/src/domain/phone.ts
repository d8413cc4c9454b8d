/**
 * Argentine mobile numbers to E.164 (`+549` + 10-digit national number: area code + subscriber).
 * Accepts what people type: `11 2345-6789`, `011 15 2345-6789`, `(0351) 15-123-4567`, `+54 9 11 2345 6789`,
 * `+54 11 2345 6789` (the mobile 9 is added), `5491123456789`. Returns null when it cannot be a mobile.
 */
export function normalizeArMobile(input: string): string | null {
  const trimmed = input.trim();
  if (!/^[+\d\s().-]{6,30}$/.test(trimmed)) return null;
  let digits = trimmed.replace(/\D/g, '');
  if (trimmed.startsWith('+') || (digits.startsWith('54') && digits.length >= 12)) {
    if (!digits.startsWith('54')) return null; // another country
    digits = digits.slice(2);
    if (digits.startsWith('9')) digits = digits.slice(1);
    if (digits.startsWith('0')) digits = digits.slice(1);
  } else if (digits.startsWith('0')) {
    digits = digits.slice(1); // national trunk prefix
  }
  if (digits.length === 12) {
    // Area code (2 to 4 digits) followed by the local mobile prefix 15: drop the 15.
    const areaLength = [2, 3, 4].find((n) => digits.slice(n, n + 2) === '15');
    if (areaLength === undefined) return null;
    digits = digits.slice(0, areaLength) + digits.slice(areaLength + 2);
  }
  // Argentine area codes are 11 (Buenos Aires) or start with 2 or 3; "15 …" alone lacks its area code.
  if (!/^(11|[23]\d)\d{8}$/.test(digits)) return null;
  return `+549${digits}`;
}

/** `+5491123456789` → `+54 9 11 2345-6789` (Buenos Aires area code 11; others shown as area + number). */
export function formatArMobile(e164: string): string {
  const national = e164.slice(4);
  if (national.startsWith('11')) return `+54 9 11 ${national.slice(2, 6)}-${national.slice(6)}`;
  return `+54 9 ${national.slice(0, 3)} ${national.slice(3, 6)}-${national.slice(6)}`;
}
