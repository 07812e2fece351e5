// Installs manifests/crds into a cluster the way a user does (kubectl apply -k) and waits until
// the API server serves them.
import { fileURLToPath } from 'node:url';
import { toKubeError } from '../../shared/kube/errors.ts';
import { kubectl } from './kubectl.ts';
import type { Kube } from './cluster.ts';

export const CRD_DIR = fileURLToPath(new URL('../../manifests/crds/', import.meta.url));
export const CRD_NAMES = ['edgedevices', 'edgenodes', 'federations', 'dronefederateddeployments', 'offloadrequests', 'hostrequests', 'telemetryservices'].map((p) => `${p}.shifu.edgenesis.io`);

const installed = new WeakMap<Kube, Promise<void>>();

export async function installCrds(kube: Kube): Promise<void> {
  let done = installed.get(kube);
  if (done === undefined) {
    done = (async () => {
      const apply = await kubectl(kube.kubeconfigPath, ['apply', '--server-side', '--field-manager=edgeshifu-test', '-k', CRD_DIR]);
      if (apply.code !== 0) throw new Error(`kubectl apply -k manifests/crds failed: ${apply.stderr}`);
      const wait = await kubectl(kube.kubeconfigPath, ['wait', '--for=condition=Established', '--timeout=60s', ...CRD_NAMES.map((n) => `crd/${n}`)]);
      if (wait.code !== 0) throw new Error(`CRDs not established: ${wait.stderr}`);
    })();
    installed.set(kube, done);
  }
  return done;
}

/** The API server's message when it refuses a create as invalid; anything else fails the test. */
export async function rejection(attempt: Promise<unknown>): Promise<string> {
  try {
    await attempt;
  } catch (err) {
    const error = toKubeError(err, 'create');
    if (error.kind !== 'invalid') throw error;
    return error.message;
  }
  throw new Error('the API server accepted it');
}
