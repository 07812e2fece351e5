// Kubeconfig files for the test control plane: one for the admin (tests, kubectl) and one per
// component. All point at https://127.0.0.1:<port> with the test CA.
import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';

export interface KubeconfigSpec {
  readonly server: string;
  readonly caCert: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly contextName: string;
}

export function kubeconfigDocument(spec: KubeconfigSpec): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: spec.contextName, cluster: { server: spec.server, 'certificate-authority': spec.caCert } }],
    users: [{ name: spec.contextName, user: { 'client-certificate': spec.clientCert, 'client-key': spec.clientKey } }],
    contexts: [{ name: spec.contextName, context: { cluster: spec.contextName, user: spec.contextName } }],
    'current-context': spec.contextName,
  };
}

export async function writeKubeconfig(path: string, spec: KubeconfigSpec): Promise<void> {
  await writeFile(path, stringify(kubeconfigDocument(spec)), { mode: 0o600 });
}
