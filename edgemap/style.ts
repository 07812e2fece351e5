// How the edgeMap looks, shared by the page (sigma), its legend and the DOT export: colour says
// kind and phase, size says kind, link colour says link type.
import type { LinkType, VertexKind } from './model.ts';

export const KIND_SIZE: Readonly<Record<VertexKind, number>> = { edgeNode: 12, remoteCluster: 15, edgeDevice: 4, component: 7 };

/** Per kind, one colour per phase; `Unknown` also stands for "no phase reported". */
export const PHASE_COLOURS = {
  edgeNode: { Ready: '#1d4ed8', NotReady: '#9a3412', Unknown: '#64748b' },
  edgeDevice: { Running: '#16a34a', Pending: '#d97706', Failed: '#dc2626', Unknown: '#9ca3af' },
  remoteCluster: { Peered: '#7c3aed', Unreachable: '#be185d', Unknown: '#c4b5fd' },
  // the phases on the way (ASSIGNED … CONNECTED) share the colour of SCHEDULED (vertexColour)
  component: { LAUNCHED: '#0d9488', SCHEDULED: '#ca8a04', FAILED: '#dc2626', Unknown: '#a8a29e' },
} as const satisfies Record<VertexKind, Record<string, string>>;

export const LINK_COLOURS: Readonly<Record<LinkType, string>> = {
  Ethernet: '#0891b2', USB: '#ea580c', Serial: '#65a30d', Wireless: '#db2777', Federation: '#6d28d9', Offload: '#0d9488',
};

export function vertexColour(kind: VertexKind, phase: string | undefined): string {
  const palette: Readonly<Record<string, string>> = PHASE_COLOURS[kind];
  const shown = kind === 'component' && phase !== undefined && !(phase in palette) && phase !== 'RELEASED' ? 'SCHEDULED' : phase;
  return palette[shown ?? 'Unknown'] ?? palette.Unknown ?? '#9ca3af';
}
