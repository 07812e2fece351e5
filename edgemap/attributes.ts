// Checks what callers give the edgeMap, with errors that name the field (shared/compiled-validator.ts: every vertex and link is checked).
// Each EdgeMap owns its validators (no module-level state).
import { CompiledValidator } from '../shared/compiled-validator.ts';
import { EdgeshifuError } from '../shared/errors.ts';
import {
  ClusterAttributes, ComponentAttributes, DeviceAttributes, LINK_TYPES, LinkAttributes, NodeAttributes,
  type LinkType, type Location, type VertexKind,
} from './model.ts';

export interface AttributeCheckers {
  vertex(kind: VertexKind, value: unknown, what: string): void;
  link(type: unknown, value: unknown, what: string): asserts type is LinkType;
}

export function attributeCheckers(): AttributeCheckers {
  const byKind = {
    edgeNode: new CompiledValidator(NodeAttributes, 'attributes'),
    edgeDevice: new CompiledValidator(DeviceAttributes, 'attributes'),
    remoteCluster: new CompiledValidator(ClusterAttributes, 'attributes'),
    component: new CompiledValidator(ComponentAttributes, 'attributes'),
  };
  const link = new CompiledValidator(LinkAttributes, 'attributes');
  return {
    vertex(kind, value, what) {
      byKind[kind].parse(value, what);
      checkCoordinates((value as { location?: Location }).location, what);
    },
    link(type, value, what) {
      if (!(LINK_TYPES as readonly unknown[]).includes(type)) {
        throw new EdgeshifuError('invalid', `${what}: link type ${JSON.stringify(type)} must be one of ${LINK_TYPES.join(', ')}`);
      }
      link.parse(value, what);
    },
  };
}

// The CRD's CEL rule (latitude and longitude together) is the API server's; we check it here too.
function checkCoordinates(location: Location | undefined, what: string): void {
  if (location === undefined) return;
  if ((location.latitude === undefined) !== (location.longitude === undefined)) {
    throw new EdgeshifuError('invalid', `${what} is invalid: attributes.location latitude and longitude must be given together`);
  }
}
