// Deterministic ties: keys compare by UTF-16 code units, the same on every machine and locale.
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
