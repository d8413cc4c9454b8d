import type { Writable } from 'node:stream';

/**
 * One line of a CSV export (RFC 4180, CRLF). A cell that a spreadsheet would take for a formula (it
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return, OWASP's CSV injection list) is given a
 * leading apostrophe: an export may carry what a person typed (a name), and opening it must not run it.
 */
export function csvLine(values: readonly string[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

function csvCell(value: string): string {
  const inert = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(inert) ? `"${inert.replace(/"/g, '""')}"` : inert;
}

/**
 * Writes a chunk of an export and waits while the client's connection is full. A client that goes
 * away meanwhile ends the wait with an error (waiting for `drain` alone would wait forever).
 */
export async function writeOrWait(out: Writable, chunk: string): Promise<void> {
  if (out.destroyed) throw new Error('the client went away during the export');
  if (out.write(chunk)) return;
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(new Error('the client went away during the export'));
    out.on('drain', onDrain);
    out.on('close', onClose);
  });
}
