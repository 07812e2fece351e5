// Attribute objects held by the edgeMap are plain JSON: copied on the way in (a caller mutating
// its object later must not change the map), frozen (readers get the stored object without a
// copy), and compared structurally so an unchanged upsert emits nothing (informer resyncs).

/** A deep copy of a JSON-like value that drops `undefined` properties, deeply frozen. */
export function frozenCopy<T>(value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map((v: unknown) => frozenCopy(v))) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) copy[k] = frozenCopy(v);
  }
  return Object.freeze(copy) as T;
}

/** Structural equality of JSON-like values; `undefined` properties count as absent. */
export function samePlain(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = definedKeys(a);
  const kb = definedKeys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => samePlain((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function definedKeys(o: object): string[] {
  return Object.entries(o).filter(([, v]) => v !== undefined).map(([k]) => k);
}
