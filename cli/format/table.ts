// Plain-text tables as kubectl prints them: upper-case headers, columns padded with two spaces,
// `<none>` for a missing value (pure).
import { formatBytes, parseQuantity } from '../../shared/kube/quantity.ts';

/** A cell: absent values print as `<none>`. */
export type Cell = string | number | undefined;

export function cellText(cell: Cell): string {
  if (cell === undefined || cell === '') return '<none>';
  // a table cell is one line: a value with line breaks would shift every column after it
  return String(cell).replace(/[\r\n\t]+/g, ' ');
}

export function renderTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((row) => headers.map((_, i) => cellText(row[i])));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...text.map(line)].join('\n');
}

/** 45s, 3m, 5h, 2d: as kubectl's AGE column. */
export function shortDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return `${String(s)}s`;
  if (s < 2 * 3600) return `${String(Math.floor(s / 60))}m`;
  if (s < 2 * 86_400) return `${String(Math.floor(s / 3600))}h`;
  return `${String(Math.floor(s / 86_400))}d`;
}

/** How long ago `time` (RFC 3339) was, or undefined when it is absent or unreadable. */
export function age(time: string | undefined, now: Date): string | undefined {
  const at = time === undefined ? Number.NaN : Date.parse(time);
  return Number.isNaN(at) ? undefined : shortDuration((now.getTime() - at) / 1000);
}

/**
 * A memory or disk quantity as the reader wants it, still a Kubernetes quantity: a Node and
 * shifud write "16305912Ki", an older shifud or a user plain bytes ("21911265280"). Examples:
 * "21911265280" → "20.4Gi"; "4Gi" → "4Gi"; "512Mi" → "512Mi"; "oops" → "oops" (shown as written).
 */
export function byteQuantity(value: string | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return formatBytes(parseQuantity(value));
  } catch {
    return String(value);
  }
}
