// The deviceShifu Service: port 80 → 8080 as in Shifu's samples, plus the raw TCP port of a TCP
// device and the CoAP port of an LwM2M one (pure).
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import { bundleLabels, bundleNames, selectorLabels } from './names.ts';
import { HTTP_PORT, LWM2M_PORT, type DeviceInput } from './deployment.ts';

export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer';

export function deviceShifuService(device: DeviceInput, namespace: string, type: ServiceType): V1Service {
  const ports: V1ServicePort[] = [{ name: 'http', port: 80, targetPort: HTTP_PORT, protocol: 'TCP' }];
  if (device.spec.protocol === 'TCP') {
    const port = Number(device.spec.protocolSettings?.TCPSetting?.ListenPort ?? '8081');
    ports.push({ name: 'tcp', port, targetPort: port, protocol: 'TCP' });
  }
  // an LwM2M device registers with deviceShifu's LwM2M server: CoAP on UDP 5683
  if (device.spec.protocol === 'LwM2M') ports.push({ name: 'coap', port: LWM2M_PORT, targetPort: LWM2M_PORT, protocol: 'UDP' });
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: bundleNames(device).service, namespace, labels: bundleLabels(device) },
    spec: { type, selector: selectorLabels(device), ports },
  };
}

/** Where applications reach the device. */
export function deviceShifuUrl(device: DeviceInput, namespace: string): string {
  return `http://${bundleNames(device).service}.${namespace}.svc`;
}
