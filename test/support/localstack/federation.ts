// `npm start -- --clusters 2`: the local stack as DRONE cluster edge-1, a neighbour
// control plane edge-2 with room, each controller with its embedded broker on 127.0.0.1, the
// Secrets and Federations of the federation-member overlay, and a demo DroneFederatedDeployment
// that edge-1 is too small for, so it offloads. The plain-data parts (names, flags, the demo app,
// the progress line) are pure; the rest talks to the two API servers.
import { randomBytes } from 'node:crypto';
import type { KubernetesListObject } from '@kubernetes/client-node';
import type { Kube } from '../cluster.ts';
import { freePorts } from '../controlplane/ports.ts';
import { DeadlineExceeded, waitFor } from '../wait.ts';
import { GROUP, VERSION } from '../../../shared/crds/resources.ts';
import { Informer } from '../../../shared/kube/informer.ts';
import type { DroneFederatedDeployment } from '../../../controller/offload/workload.ts';

export const HOME_ID = 'edge-1';
export const NEIGHBOUR_ID = 'edge-2';
export const NEIGHBOUR_NODE = 'edge-2-node';
/** edge-1's node when federated: room for the deviceShifus, not for the demo's components. */
export const SMALL_NODE = { cpu: '500m', memory: '1Gi' } as const;
export const ROOMY_NODE = { cpu: '8', memory: '16Gi' } as const;
export const DEMO = { namespace: 'apps', name: 'shop' } as const;
const SYSTEM = 'edgeshifu-system';
const USERS_SECRET = 'edgeshifu-drone-users';

/** One cluster of the local federation. The password is never printed: it goes to a Secret and the controller's environment. */
export interface DroneMember {
  readonly id: string;
  readonly password: string;
  readonly brokerPort: number;
}

export async function planFederation(): Promise<{ home: DroneMember; neighbour: DroneMember }> {
  const [home = 0, neighbour = 0] = await freePorts(2);
  const password = (): string => randomBytes(18).toString('base64url');
  return { home: { id: HOME_ID, password: password(), brokerPort: home }, neighbour: { id: NEIGHBOUR_ID, password: password(), brokerPort: neighbour } };
}

/** The controller's DRONE flags (its password goes in `droneEnv`, never argv). */
export function droneArgs(m: DroneMember): string[] {
  return ['--drone-cluster', m.id, '--drone-users-secret', `${SYSTEM}/${USERS_SECRET}`, '--drone-broker-listen', `127.0.0.1:${String(m.brokerPort)}`];
}

export function droneEnv(m: DroneMember): Record<string, string> {
  return { EDGESHIFU_DRONE_PASSWORD: m.password };
}

/** The demo's images: what each member's Federation lets its neighbour run. */
export const DEMO_IMAGES = ['postgres:16', 'nginx:1.27'] as const;

/**
 * What `self` needs to federate with `peer`, named as `edgeshifu federation join` names them
 * (cli/federation-objects.ts), on loopback in plain MQTT: its own password, the login `peer` uses
 * on self's broker, and a Federation + Secret for peer's broker. Secrets are created through the API (kubectl apply would keep them in an annotation).
 */
export async function federate(kube: Kube, self: DroneMember, peer: DroneMember): Promise<void> {
  await kube.core.createNamespace({ body: { metadata: { name: SYSTEM } } }).catch((err: unknown) => {
    if ((err as { code?: number }).code !== 409) throw err;
  });
  const secret = (name: string, stringData: Record<string, string>): Promise<unknown> =>
    kube.core.createNamespacedSecret({ namespace: SYSTEM, body: { metadata: { name }, type: 'Opaque', stringData } });
  await secret('edgeshifu-drone', { password: self.password });
  await secret(USERS_SECRET, { [peer.id]: peer.password });
  await secret(`federation-${peer.id}`, { username: self.id, password: self.password });
  await kube.custom.createClusterCustomObject({
    group: GROUP, version: VERSION, plural: 'federations',
    body: {
      apiVersion: `${GROUP}/${VERSION}`, kind: 'Federation', metadata: { name: peer.id },
      spec: { clusterId: peer.id, brokerUrl: `mqtt://127.0.0.1:${String(peer.brokerPort)}`, credentialsSecretRef: { name: `federation-${peer.id}`, namespace: SYSTEM }, weight: 1,
        // deny by default: the demo runs the images of its own DroneFederatedDeployment for its neighbour
        hosting: { allowedImages: [...DEMO_IMAGES] } },
    },
  });
}

/** Resolves once `kube`'s Federation `peer` says its neighbour's slice adverts arrive. */
export async function heard(kube: Kube, peer: string): Promise<void> {
  await waitFor(`the Federation ${peer} to say Connected`, async () => {
    const federation = await kube.custom.getClusterCustomObject({ group: GROUP, version: VERSION, plural: 'federations', name: peer }) as { status?: { conditions?: Array<{ type: string; status: string }> } };
    return federation.status?.conditions?.some((c) => c.type === 'Connected' && c.status === 'True') === true ? true : undefined;
  }, { timeoutMs: 120_000, intervalMs: 250 });
}

interface DemoComponent { name: string; port: number; image: string; requests: { cpu: string; memory: string }; bootDependencies?: string[] }

function component({ name, port, image, requests, bootDependencies }: DemoComponent): Record<string, unknown> {
  return {
    name, ports: [{ name: 'main', port }], ...(bootDependencies === undefined ? {} : { bootDependencies }),
    template: { spec: { replicas: 1, template: { metadata: { labels: { app: `${DEMO.name}-${name}` } }, spec: { containers: [{ name, image, ports: [{ containerPort: port }], resources: { requests } }] } } } },
  };
}

/** The demo app as a user writes it: its namespace and a two-component DroneFederatedDeployment, each component larger than edge-1's node. */
export function demoManifests(): Record<string, unknown>[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: DEMO.namespace } },
    {
      apiVersion: `${GROUP}/${VERSION}`, kind: 'DroneFederatedDeployment', metadata: { name: DEMO.name, namespace: DEMO.namespace },
      spec: {
        components: [
          component({ name: 'db', port: 5432, image: DEMO_IMAGES[0], requests: { cpu: '1', memory: '1Gi' } }),
          component({ name: 'api', port: 8080, image: DEMO_IMAGES[1], requests: { cpu: '1', memory: '1Gi' }, bootDependencies: ['db'] }),
        ],
      },
    },
  ];
}

/** One line of offload progress: the phase, and where each component runs, in what phase. */
export function offloadLine(dfd: Pick<DroneFederatedDeployment, 'metadata' | 'status'>): string {
  const status = dfd.status ?? {};
  const components = (status.components ?? []).map((c) =>
    `${c.name} → ${c.cluster ?? '?'} ${c.phase}${c.endpoint === undefined ? '' : ` (${c.endpoint})`}`);
  const reason = status.phase === 'FAILED' && status.reason !== undefined ? ` — ${status.reason}` : '';
  return `offload ${dfd.metadata.name ?? ''}: ${status.phase ?? '(no status yet)'}${components.length === 0 ? '' : `  ${components.join(', ')}`}${reason}`;
}

/**
 * Prints each state of the demo as the API server reports it, from before `apply` (a watch, so no
 * phase is missed between two looks) until it is RUNNING. A demo that does not get there in
 * `timeoutMs` is reported, not fatal: the rest of the stack still serves.
 */
export async function followOffload(kube: Kube, progress: (line: string) => void, apply: () => Promise<void>, timeoutMs = 180_000): Promise<boolean> {
  const { namespace, name } = DEMO;
  const fieldSelector = `metadata.name=${name}`;
  const informer = new Informer<DroneFederatedDeployment>({
    kc: kube.kc, path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/dronefederateddeployments`, fieldSelector,
    list: async () => await kube.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'dronefederateddeployments', fieldSelector }) as KubernetesListObject<DroneFederatedDeployment>,
  });
  let last = '';
  let running = false;
  // states seen while kubectl apply still runs are printed after its own lines
  let held: string[] | undefined = [];
  const note = (dfd: DroneFederatedDeployment): void => {
    const line = offloadLine(dfd);
    if (line !== last) {
      if (held === undefined) progress(`  ${line}`);
      else held.push(`  ${line}`);
    }
    last = line;
    running ||= dfd.status?.phase === 'RUNNING';
  };
  informer.on('add', note);
  informer.on('update', note);
  await informer.start();
  try {
    await apply();
    for (const line of held) progress(line);
    held = undefined;
    return await waitFor(`the DroneFederatedDeployment ${name} to be RUNNING`, () => (running ? true : undefined), { timeoutMs, intervalMs: 100 });
  } catch (err) {
    if (!(err instanceof DeadlineExceeded)) throw err;
    progress(`the demo offload is not RUNNING after ${String(timeoutMs / 1000)} s (last: ${last}); kubectl describe dfd -n ${namespace} ${name} says why`);
    return false;
  } finally {
    await informer.stop();
  }
}
