/**
 * Text repairs for payloads that went through the wrong character set on their way to us. A PDF417
 * decoder that reads the DNI's UTF-8 bytes as Latin-1 or Windows-1252 turns 'Ñ' (C3 91) into 'Ã‘' and
 * 'É' (C3 89) into 'Ã‰'; reading the two-character sequence back as bytes and decoding it as UTF-8
 * restores the letter. Only two-byte sequences are repaired: every Latin letter of Spanish names is one.
 */

// Windows-1252 puts printable characters where Latin-1 has C1 controls (0x80-0x9F).
const WINDOWS_1252_HIGH: Readonly<Record<string, number>> = {
  '\u20AC': 0x80,
  '\u201A': 0x82,
  '\u0192': 0x83,
  '\u201E': 0x84,
  '\u2026': 0x85,
  '\u2020': 0x86,
  '\u2021': 0x87,
  '\u02C6': 0x88,
  '\u2030': 0x89,
  '\u0160': 0x8a,
  '\u2039': 0x8b,
  '\u0152': 0x8c,
  '\u017D': 0x8e,
  '\u2018': 0x91,
  '\u2019': 0x92,
  '\u201C': 0x93,
  '\u201D': 0x94,
  '\u2022': 0x95,
  '\u2013': 0x96,
  '\u2014': 0x97,
  '\u02DC': 0x98,
  '\u2122': 0x99,
  '\u0161': 0x9a,
  '\u203A': 0x9b,
  '\u0153': 0x9c,
  '\u017E': 0x9e,
  '\u0178': 0x9f,
};

const CONTINUATION_CHARS = `\\u0080-\\u00BF${Object.keys(WINDOWS_1252_HIGH).join('')}`;
// A UTF-8 lead byte of a two-byte sequence (C2-DF) followed by one continuation byte (80-BF).
const MOJIBAKE_PAIR = new RegExp(`[\\u00C2-\\u00DF][${CONTINUATION_CHARS}]`, 'g');

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function byteOf(char: string): number | null {
  const code = char.codePointAt(0);
  if (code === undefined) return null;
  if (code <= 0xff) return code;
  return WINDOWS_1252_HIGH[char] ?? null;
}

/** Repairs 'Ã‘' → 'Ñ', 'Ã¡' → 'á' and the like; leaves anything that is not such a pair untouched. */
export function repairMojibake(text: string): string {
  return text.replace(MOJIBAKE_PAIR, (pair) => {
    const lead = byteOf(pair.charAt(0));
    const continuation = byteOf(pair.charAt(1));
    if (lead === null || continuation === null) return pair;
    try {
      return strictUtf8.decode(Uint8Array.of(lead, continuation));
    } catch {
      return pair;
    }
  });
}

/** Leading and trailing whitespace and control characters (scanners append CR/LF, some prepend NUL). */
export function trimControlAndSpace(text: string): string {
  return text.replace(/^[\s\p{Cc}]+|[\s\p{Cc}]+$/gu, '');
}

/** Inner runs of whitespace become one space. */
export function collapseSpaces(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
