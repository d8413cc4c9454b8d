/** One line of a diff: kept, removed (only in the old text) or added (only in the new one). */
export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** A configuration as people read it in a diff: sorted keys are not needed, the JSON's own order is kept. */
export const readableJson = (value: unknown): string => JSON.stringify(value, null, 2);

/**
 * A line diff by the longest common subsequence (configurations are a few hundred lines at most: the
 * quadratic table is small; past 2,000 lines a side the texts are shown as replaced whole).
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before ? before.split('\n') : [];
  const b = after ? after.split('\n') : [];
  if (a.length > 2000 || b.length > 2000) {
    return [...a.map((text) => ({ kind: 'removed' as const, text })), ...b.map((text) => ({ kind: 'added' as const, text }))];
  }
  const lcs: Uint16Array[] = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i]! });
      i += 1;
      j += 1;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      lines.push({ kind: 'removed', text: a[i]! });
      i += 1;
    } else {
      lines.push({ kind: 'added', text: b[j]! });
      j += 1;
    }
  }
  for (; i < a.length; i += 1) lines.push({ kind: 'removed', text: a[i]! });
  for (; j < b.length; j += 1) lines.push({ kind: 'added', text: b[j]! });
  return lines;
}

export const hasChanges = (lines: readonly DiffLine[]) => lines.some((line) => line.kind !== 'same');
