// What the reclaim tests share (reclaim.test.ts, reclaim-movable.test.ts): three real control
// planes with their controllers and brokers, apps of one-cpu-sized components, and reads of what
// each cluster holds.
import type { ExecutionContext } from 'ava';
import type { CoreV1Event } from '@kubernetes/client-node';
import { waitFor } from '../support/wait.ts';
import { kubectl } from '../support/kubectl.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import type { HostRequest } from '../../controller/offload/objects.ts';
import type { DroneFederatedDeployment } from '../../controller/offload/workload.ts';
import { APPS, listCustom, readApp, startFederation, type Member } from './support.ts';

/** Components of `[name, cpu]` (128Mi each); `movable` is the deployment's spec.movable. */
export function appOf(name: string, components: ReadonlyArray<readonly [string, string]>, movable?: boolean): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/${VERSION}`, kind: 'DroneFederatedDeployment', metadata: { name, namespace: APPS },
    spec: {
      ...(movable === undefined ? {} : { movable }),
      components: components.map(([component, cpu]) => ({
        name: component, ports: [{ name: 'http', port: 8080 }],
        template: { spec: { replicas: 1, template: { spec: { containers: [{ name: component, image: `example.com/${component}:1`, resources: { requests: { cpu, memory: '128Mi' } } }] } } } },
      })),
    },
  };
}

/** One component asking for `cpu`. */
export function app(name: string, component: string, cpu: string, movable?: boolean): Record<string, unknown> {
  return appOf(name, [[component, cpu]], movable);
}

/**
 * a cannot host anything of these apps; b offers 4 cpu, c 1 cpu (half of each node: the tests'
 * scale). `held` (600m) goes to b, where it keeps the most of its slice; `big` (3800m) then fits
 * nowhere as things are, and on b once `held` is on c.
 */
export async function federation(t: ExecutionContext): Promise<[Member, Member, Member]> {
  const [a, b, c] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '8', memory: '8Gi' }, { id: 'c', cpu: '2', memory: '4Gi' }]);
  if (a === undefined || b === undefined || c === undefined) throw new Error('no federation');
  await waitFor('a to hear b and c', () => {
    const providers = a.controller.controller.offloader?.federation.agent.providers() ?? [];
    return providers.includes('b') && providers.includes('c') ? true : undefined;
  }, { timeoutMs: 30_000 });
  return [a, b, c];
}

export async function until(kube: Member['kube'], name: string, what: string, check: (d: DroneFederatedDeployment) => boolean): Promise<DroneFederatedDeployment> {
  return waitFor(`${name} ${what}`, async () => { const d = await readApp(kube, name); return d !== undefined && check(d) ? d : undefined; }, { timeoutMs: 120_000 });
}

export const placedOn = (d: DroneFederatedDeployment, component: string): string | undefined => d.status?.components?.find((c) => c.name === component)?.cluster;
export const phaseOf = (d: DroneFederatedDeployment, component: string): string | undefined => d.status?.components?.find((c) => c.name === component)?.phase;

export async function hostRequests(m: Member): Promise<HostRequest[]> {
  return listCustom<HostRequest>(m.kube, 'hostrequests', 'drone-a').catch(() => []);
}

export async function hostedDeployments(m: Member): Promise<string[]> {
  const list = await m.kube.apps.listNamespacedDeployment({ namespace: 'drone-a' }).catch(() => ({ items: [] }));
  return list.items.map((d) => d.metadata?.name ?? '');
}

export async function movedEvents(a: Member): Promise<CoreV1Event[]> {
  const list = await a.kube.core.listNamespacedEvent({ namespace: APPS });
  return list.items.filter((e) => e.reason === 'Moved');
}

/** How often a's controller started a reclaim for `name`. */
export const reclaims = (a: Member, name: string): number => a.controller.logs.filter((l) => l.includes('"msg":"reclaiming"') && l.includes(`"app":"${APPS}.${name}.`)).length;

export async function taint(m: Member, on: boolean): Promise<void> {
  const result = await kubectl(m.kube.kubeconfigPath, ['taint', 'nodes', `${m.id}-node`, on ? 'edgeshifu.test/hold=true:NoSchedule' : 'edgeshifu.test/hold-']);
  if (result.code !== 0) throw new Error(result.stderr);
}
