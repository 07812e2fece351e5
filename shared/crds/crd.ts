// Renders a ResourceDefinition as an apiextensions.k8s.io/v1 CustomResourceDefinition (pure).
import { API_VERSION, GROUP, VERSION, type ResourceDefinition } from './resources.ts';

/** Drops TypeBox's symbol-keyed bookkeeping: what is left is plain OpenAPI v3. */
function plain(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

export function customResourceDefinition(def: ResourceDefinition): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${GROUP}`, labels: { 'app.kubernetes.io/part-of': 'edgeshifu' } },
    spec: {
      group: GROUP,
      names: { kind: def.kind, listKind: `${def.kind}List`, plural: def.plural, singular: def.singular, shortNames: [...def.shortNames], categories: ['edgeshifu'] },
      scope: def.scope,
      versions: [{
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: def.printerColumns.map((c) => ({ ...c })),
        schema: {
          openAPIV3Schema: {
            description: def.description,
            type: 'object',
            required: ['spec'],
            properties: {
              apiVersion: { type: 'string', description: `Always ${API_VERSION}.` },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: plain(def.spec),
              status: plain(def.status),
            },
          },
        },
      }],
    },
  };
}
