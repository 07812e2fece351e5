// What the search box finds (pure): the vertex a query names, a device before any other kind. In
// each group an exact key wins, then an exact name (the key's last part: a device's name without
// its namespace), then the first key, in key order, that contains the query. Case does not matter.
import type { VertexKind } from '../model.ts';

export interface Searchable {
  readonly key: string;
  readonly kind: VertexKind;
}

export function findVertex(vertices: readonly Searchable[], query: string): string | undefined {
  const wanted = query.trim().toLowerCase();
  if (wanted === '') return undefined;
  const name = (key: string): string => key.slice(key.lastIndexOf('/') + 1).toLowerCase();
  const match = (group: readonly Searchable[]): Searchable | undefined => group.find((v) => v.key.toLowerCase() === wanted)
    ?? group.find((v) => name(v.key) === wanted)
    ?? group.find((v) => v.key.toLowerCase().includes(wanted));
  const sorted = [...vertices].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return (match(sorted.filter((v) => v.kind === 'edgeDevice')) ?? match(sorted.filter((v) => v.kind !== 'edgeDevice')))?.key;
}
