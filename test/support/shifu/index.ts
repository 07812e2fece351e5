// Shifu's example manifests (EdgeDevices from its demos, values as Shifu ships them) loaded for
// tests, with the namespace swapped for the test's own.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { KubernetesObject } from '@kubernetes/client-node';

export const SHIFU_EXAMPLES = ['thermometer', 'robotarm', 'agv', 'mqtt', 'socket', 'opcua', 'lwm2m'] as const;

export function shifuExample(name: string, namespace?: string): KubernetesObject[] {
  const text = readFileSync(new URL(`./${name}.yaml`, import.meta.url), 'utf8');
  return parseAllDocuments(text).map((doc) => {
    const object = doc.toJS() as KubernetesObject;
    if (namespace !== undefined && object.metadata) object.metadata.namespace = namespace;
    return object;
  });
}
