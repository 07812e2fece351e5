// Where a shared device's Service says its node's host serves it (records.ts keeps it on the
// Service's record): the node, the port, and when and why the node was chosen. Pure.
import type { V1Service } from '@kubernetes/client-node';
import { ANNOTATION_HOST_NODE, LABEL_HOST } from '../shared/node-host.ts';
import { ANNOTATION_PLACED_AT, ANNOTATION_PLACEMENT_REASON } from './bundle/names.ts';

export interface SharedPlacement {
  readonly node: string;
  readonly port: number;
  readonly placedAt: string | undefined;
  readonly placementReason: string | undefined;
}

interface Interner {
  intern<S extends string | undefined>(value: S): S;
}

/** Undefined for a dedicated deviceShifu's Service (or anything else). */
export function sharedPlacement(service: V1Service, names: Interner, messages: Interner): SharedPlacement | undefined {
  const annotations = service.metadata?.annotations;
  const node = annotations?.[ANNOTATION_HOST_NODE];
  const port = service.spec?.ports?.find((p) => p.name === 'http')?.targetPort;
  if (node === undefined || service.metadata?.labels?.[LABEL_HOST] === undefined || typeof port !== 'number') return undefined;
  return { node: names.intern(node), port, placedAt: annotations?.[ANNOTATION_PLACED_AT], placementReason: messages.intern(annotations?.[ANNOTATION_PLACEMENT_REASON]) };
}
