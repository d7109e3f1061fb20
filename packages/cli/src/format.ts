// Plain-text layout for humans: aligned tables and key/value blocks, no dependency and no
// colour (output is as often piped to grep as read on a terminal).

export interface Column {
  header: string;
  /** cells longer than this are cut with an ellipsis */
  max?: number;
}

const ELLIPSIS = '…';

export function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s*[\r\n]+\s*/g, ' ');
  return oneLine.length > max ? `${oneLine.slice(0, Math.max(0, max - 1))}${ELLIPSIS}` : oneLine;
}

/** Columns separated by two spaces, padded to the widest cell; the last column is not padded. */
export function table(columns: Column[], rows: string[][]): string {
  const cells = rows.map((row) => columns.map((c, i) => truncate(row[i] ?? '', c.max ?? 80)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}

/** "key:   value" lines with the values aligned. */
export function keyValues(pairs: [string, string][]): string {
  const width = Math.max(0, ...pairs.map(([k]) => k.length)) + 1;
  return pairs.map(([k, v]) => `${`${k}:`.padEnd(width)}  ${v}`).join('\n');
}

/** Pretty JSON, as `--json` prints it. */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
