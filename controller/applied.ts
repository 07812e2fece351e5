// What this process last applied: an object is written again only when what it wants changed,
// or when someone else changed or deleted it since (its marker in the cache moved). Reconciles
// come on every resync and status event; without this record each was a round of server-side
// applies that change nothing but still cost the API server a write each.
import { createHash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { stableJson } from './status.ts';

/** 48 bits of SHA-256 as a number: a string per object cost ~1.5 KB per device in records. */
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

/** Records per owner (a device, a deployment): `forget(owner)` drops them all when it goes. */
export class AppliedObjects {
  private readonly records = new Map<string, Map<string, Applied>>();

  /** Whether `object` must be written: new, changed since last applied, or moved in the cache. */
  needs(owner: string, object: KubernetesObject, observed: KubernetesObject | undefined): boolean {
    const before = this.records.get(owner)?.get(idOf(object));
    return before === undefined || before.hash !== hashOf(object) || before.marker !== markerOf(object.kind ?? '', observed);
  }

  /** Records what was applied and what the API server answered with. */
  record(owner: string, object: KubernetesObject, result: KubernetesObject | undefined): void {
    const records = this.records.get(owner) ?? new Map<string, Applied>();
    records.set(idOf(object), { hash: hashOf(object), marker: markerOf(object.kind ?? '', result) });
    this.records.set(owner, records);
  }

  /** Whether anything was applied for this owner by this process. */
  has(owner: string, object: KubernetesObject): boolean {
    return this.records.get(owner)?.has(idOf(object)) === true;
  }

  forget(owner: string): void {
    this.records.delete(owner);
  }
}

function idOf(object: KubernetesObject): string {
  return `${object.kind ?? ''}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}
