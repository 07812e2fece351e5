// What this process last applied: an object is written again only when what it wants changed,
// or when someone else changed or deleted it since (its marker in the cache moved). Reconciles
// come on every resync and status event; without this record each was a round of server-side
// applies that change nothing but still cost the API server a write each.
import { hash } from 'node:crypto';
import type { KubernetesObject, V1ManagedFieldsEntry, V1ObjectMeta } from '@kubernetes/client-node';
import { ANNOTATION_APPLIED } from './bundle/names.ts';
import { FIELD_MANAGER } from './kube-writer.ts';

/** JSON.stringify's own type hides that it answers undefined for undefined. */
const json: (value: unknown) => string | undefined = JSON.stringify;
const jsonOf = (value: unknown): string => json(value) ?? 'null';

/**
 * 48 bits of SHA-256 as a number: small to keep, and collisions are out of reach. The JSON keeps
 * the object's own key order: both sides of every comparison are built by the same code from the
 * same data (or both decoded from the API server, whose encoder is deterministic), so the order
 * agrees. Were it ever to differ, the cost is one idempotent apply, never a missed change. Sorting
 * keys cost ~90 KB of garbage per reconcile under the image's flags (steady state).
 */
export function hashOf(value: unknown): number {
  return Number.parseInt(hash('sha256', jsonOf(value)).slice(0, 12), 16);
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
  return serviceMarker(object);
}

/** A Service's marker: equal for equal specs, whichever form they come in (a cached record keeps just this). */
export function serviceMarker(service: KubernetesObject): number {
  const spec = (service as { spec?: { ports?: unknown; selector?: unknown; type?: unknown; externalName?: unknown } }).spec;
  return hashOf([spec?.ports, spec?.selector, spec?.type, spec?.externalName]);
}

/** What a cached Deployment or Service record keeps of ANNOTATION_APPLIED. */
export interface AppliedRecord {
  /** The controller's applied hash, while nobody else has written the object (appliedHash). */
  readonly applied?: number | undefined;
}

const keysOf = (fields: unknown): string[] => (fields !== null && typeof fields === 'object' ? Object.keys(fields) : []);

/**
 * Whether a managedFields entry is no hand edit: the controller's own, a status write, or the
 * Deployment controller's revision annotation (by its fields, not the writer's name, which follows
 * the binary's: k3s embeds the controller-manager).
 */
function expectedWriter(entry: V1ManagedFieldsEntry): boolean {
  if (entry.manager === FIELD_MANAGER || entry.subresource === 'status') return true;
  const fields = entry.fieldsV1 as Record<string, Record<string, unknown> | undefined> | undefined;
  const metadata = fields?.['f:metadata'];
  return keysOf(fields).join() === 'f:metadata' && keysOf(metadata).join() === 'f:annotations'
    && keysOf(metadata?.['f:annotations']).every((key) => key === '.' || key === 'f:deployment.kubernetes.io/revision');
}

/**
 * The hash in ANNOTATION_APPLIED when the controller's apply is still the object's last word: no
 * other writer (kubectl edit, scale, patch, another client) in its managedFields, status aside.
 * Undefined when absent, or when the writers are unknown: the object is then applied again.
 */
export function appliedHash(metadata: V1ObjectMeta | undefined, managedFields: readonly V1ManagedFieldsEntry[] | undefined): number | undefined {
  const value = metadata?.annotations?.[ANNOTATION_APPLIED];
  if (value === undefined || managedFields === undefined) return undefined;
  if (!managedFields.every(expectedWriter)) return undefined;
  // parseInt reads a prefix: the whole value must be base-36 digits (48 bits need at most 10)
  return /^[0-9a-z]{1,10}$/.test(value) ? Number.parseInt(value, 36) : undefined;
}

/** A record's `applied`, left out when there is none (an object edited by hand, or applied before the annotation). */
export function appliedField(metadata: V1ObjectMeta | undefined, managedFields: readonly V1ManagedFieldsEntry[] | undefined): AppliedRecord {
  const applied = appliedHash(metadata, managedFields);
  return applied === undefined ? {} : { applied };
}

/** A marker as a number, so a record is one array of doubles: none -2, missing -1. */
function encoded(marker: number | string | undefined): number {
  if (marker === undefined) return -2;
  return typeof marker === 'number' ? marker : -1;
}

/** Kinds by a small number, in the order first seen (a handful per process). */
const KINDS: string[] = [];

function kindId(kind: string): number {
  const known = KINDS.indexOf(kind);
  if (known >= 0) return known;
  KINDS.push(kind);
  return KINDS.length - 1;
}

/** Entries per object in an owner's record: kind, hash of what was applied, marker of the answer. */
const STRIDE = 3;

/**
 * Records per owner (a device's bundle, a component), one object of each kind per owner: the kind
 * names the record. Each owner's record is one flat array of numbers (kind, hash, marker per
 * object), which V8 keeps unboxed: ~0.2 KB per five-object bundle, against 0.5 KB for an object
 * of {hash, marker} records and ~1.5 KB for a string per object (footprint).
 */
export class AppliedObjects {
  private readonly records = new Map<string, number[]>();

  /** Whether `object` must be written: new, changed since last applied, or moved in the cache. */
  needs(owner: string, object: KubernetesObject, observed: KubernetesObject | undefined): boolean {
    return this.needsAgainst(owner, object, markerOf(object.kind ?? '', observed));
  }

  /** As needs(), with the cached copy's marker given (caches that keep records, not objects). */
  needsAgainst(owner: string, object: KubernetesObject, marker: number | string | undefined): boolean {
    const record = this.records.get(owner);
    const at = record === undefined ? -1 : indexOf(record, kindId(object.kind ?? ''));
    return record === undefined || at < 0 || record[at + 1] !== hashOf(object) || record[at + 2] !== encoded(marker);
  }

  /** Records what was applied and what the API server answered with. */
  record(owner: string, object: KubernetesObject, result: KubernetesObject | undefined): void {
    this.recordWith(owner, object, markerOf(object.kind ?? '', result));
  }

  /** As record(), with the answer's marker given. */
  recordWith(owner: string, object: KubernetesObject, marker: number | string | undefined): void {
    const id = kindId(object.kind ?? '');
    const entry = [id, hashOf(object), encoded(marker)];
    const record = this.records.get(owner);
    const at = record === undefined ? -1 : indexOf(record, id);
    // a new array of the exact length: a pushed one keeps spare capacity per owner
    if (record === undefined) this.records.set(owner, entry);
    else if (at < 0) this.records.set(owner, record.concat(entry));
    else record.splice(at, STRIDE, ...entry);
  }

  /** Whether this process applied an object of this kind for this owner. */
  has(owner: string, kind: string): boolean {
    const record = this.records.get(owner);
    return record !== undefined && indexOf(record, kindId(kind)) >= 0;
  }

  forget(owner: string): void {
    this.records.delete(owner);
  }

  /** Drops every owner under a prefix (a deployment's components): rare, so a scan. */
  forgetUnder(prefix: string): void {
    for (const owner of this.records.keys()) if (owner.startsWith(prefix)) this.records.delete(owner);
  }
}

function indexOf(record: readonly number[], id: number): number {
  for (let i = 0; i < record.length; i += STRIDE) if (record[i] === id) return i;
  return -1;
}
