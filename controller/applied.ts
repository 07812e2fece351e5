// What this process last applied: an object is written again only when what it wants changed,
// or when someone else changed or deleted it since (its marker in the cache moved). Reconciles
// come on every resync and status event; without this record each was a round of server-side
// applies that change nothing but still cost the API server a write each.
import { createHash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { stableJson } from './status.ts';

/** 48 bits of SHA-256 as a number: small to keep, and collisions are out of reach. */
export function hashOf(value: unknown): number {
  return createHash('sha256').update(stableJson(value)).digest().readUIntBE(0, 6);
}

/**
 * What tells that someone else changed or deleted an object since it was applied: a Deployment's
 * generation (bumped by every spec edit); a Service's ports, selector, type and external name;
 * an EndpointSlice's endpoints and ports. Other kinds are not watched: undefined.
 */
export function markerOf(kind: string, object: KubernetesObject | undefined): number | string | undefined {
  if (kind !== 'Deployment' && kind !== 'Service' && kind !== 'EndpointSlice') return undefined;
  if (object === undefined) return 'missing';
  if (kind === 'Deployment') return object.metadata?.generation ?? 0;
  if (kind === 'EndpointSlice') {
    const slice = object as { endpoints?: unknown; ports?: unknown };
    return hashOf([slice.endpoints, slice.ports]);
  }
  const spec = (object as { spec?: { ports?: unknown; selector?: unknown; type?: unknown; externalName?: unknown } }).spec;
  return hashOf([spec?.ports, spec?.selector, spec?.type, spec?.externalName]);
}

interface Applied {
  readonly hash: number;
  readonly marker?: number | string;
}

/**
 * Records per owner (a device's bundle, a component), one object of each kind per owner: the kind
 * names the record. A string per object cost ~1.5 KB per device at 10,000 devices; a Map per
 * owner keyed by object hashes 60 % more than these plain records.
 */
export class AppliedObjects {
  private readonly records = new Map<string, Partial<Record<string, Applied>>>();

  /** Whether `object` must be written: new, changed since last applied, or moved in the cache. */
  needs(owner: string, object: KubernetesObject, observed: KubernetesObject | undefined): boolean {
    const kind = object.kind ?? '';
    const before = this.records.get(owner)?.[kind];
    return before === undefined || before.hash !== hashOf(object) || before.marker !== markerOf(kind, observed);
  }

  /** Records what was applied and what the API server answered with. */
  record(owner: string, object: KubernetesObject, result: KubernetesObject | undefined): void {
    const kind = object.kind ?? '';
    const records = this.records.get(owner) ?? {};
    records[kind] = { hash: hashOf(object), marker: markerOf(kind, result) };
    this.records.set(owner, records);
  }

  /** Whether this process applied an object of this kind for this owner. */
  has(owner: string, kind: string): boolean {
    return this.records.get(owner)?.[kind] !== undefined;
  }

  forget(owner: string): void {
    this.records.delete(owner);
  }

  /** Drops every owner under a prefix (a deployment's components): rare, so a scan. */
  forgetUnder(prefix: string): void {
    for (const owner of this.records.keys()) if (owner.startsWith(prefix)) this.records.delete(owner);
  }
}
