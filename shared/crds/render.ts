// The text of every file in manifests/crds, from the schemas (pure).
import { stringify } from 'yaml';
import { customResourceDefinition } from './crd.ts';
import { GROUP, RESOURCES } from './resources.ts';

const HEADER = '# Generated from shared/crds by `npm run crds:generate`. Do not edit.\n';

export function crdFileName(plural: string): string {
  return `${plural}.${GROUP}.yaml`;
}

export function renderCrdManifests(): Map<string, string> {
  const files = new Map<string, string>();
  for (const def of RESOURCES) {
    files.set(crdFileName(def.plural), HEADER + stringify(customResourceDefinition(def), { lineWidth: 0 }));
  }
  const kustomization = { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: RESOURCES.map((d) => crdFileName(d.plural)) };
  files.set('kustomization.yaml', HEADER + stringify(kustomization));
  return files;
}
