// LwM2M discovery: an LwM2M device is not probed (it registers with its deviceShifu, shifud has no
// address to try), so the node learns its LwM2M clients from the deviceShifus placed on it, which
// record each registration in their EdgeDevice's status.lwm2m. Pure: EdgeDevices in, the
// EdgeNode's status.lwm2mEndpoints out, sorted so the same set always gives the same list.
import type { EdgeDevice } from '../shared/crds/edgedevice.ts';
import type { Lwm2mEndpointSeen } from '../shared/crds/lwm2m-status.ts';

export const MAX_LWM2M_ENDPOINTS = 4096;

export function lwm2mEndpointsOn(nodeName: string, devices: readonly EdgeDevice[]): Lwm2mEndpointSeen[] {
  const seen: Lwm2mEndpointSeen[] = [];
  for (const device of devices) {
    const registration = device.status?.lwm2m;
    if (device.spec.protocol !== 'LwM2M' || device.status?.nodeName !== nodeName || registration === undefined) continue;
    seen.push({
      name: device.metadata.name ?? '', namespace: device.metadata.namespace ?? '', endpointName: registration.endpointName,
      address: registration.address, registeredAt: registration.registeredAt, objects: registration.objects,
    });
  }
  const key = (e: Lwm2mEndpointSeen): string => `${e.namespace}/${e.name}`;
  return seen.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).slice(0, MAX_LWM2M_ENDPOINTS);
}
