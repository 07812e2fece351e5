// REAR in the real controller on three real control planes (test/offload/support.ts makes them,
// DRONE on, signed): cons-a, a member of domain-a behind supernode sn-a, and prov-b, the
// supernode of domain-b, which sells. Each runs the controller's own REAR wiring (--rear-...).
import type { ExecutionContext } from 'ava';
import type { Solver } from '../../controller/rear/solver-reconciler.ts';
import type { RearService } from '../../controller/rear/manager.ts';
import type { RearNode } from '../../controller/rear/rear-node.ts';
import type { Flavour } from '../../controller/rear/core/model.ts';
import { API_VERSION } from '../../shared/crds/resources.ts';
import type { Kube } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { APPS, startFederation, type Member, type MemberSpec } from '../offload/support.ts';

export interface RearFederation { cons: Member; sn: Member; prov: Member; cons2?: Member }

/** `secondConsumer`: a fourth cluster, cons-a2, also behind sn-a. */
export async function rearFederation(t: ExecutionContext, provArgs: readonly string[] = [], secondConsumer = false): Promise<RearFederation> {
  const consumer = (id: string): MemberSpec => ({ id, cpu: '1', memory: '2Gi', args: ['--rear-domain', 'domain-a', '--rear-supernode', 'sn-a', '--rear-reply-timeout-ms', '5000'] });
  const [cons, sn, prov, cons2] = await startFederation(t, [
    consumer('cons-a'),
    { id: 'sn-a', cpu: '1', memory: '2Gi', args: ['--rear-domain', 'domain-a', '--rear-members', secondConsumer ? 'cons-a,cons-a2' : 'cons-a', '--rear-supernodes', 'domain-b=prov-b', '--rear-reply-timeout-ms', '5000'] },
    { id: 'prov-b', cpu: '8', memory: '16Gi', args: ['--rear-domain', 'domain-b', '--rear-supernodes', 'domain-a=sn-a', '--rear-reply-timeout-ms', '5000', ...provArgs] },
    ...(secondConsumer ? [consumer('cons-a2')] : []),
  ], { signed: true });
  if (cons === undefined || sn === undefined || prov === undefined) throw new Error('no federation');
  await waitFor('prov-b to sell its slice', () => ((rearOf(prov).market?.flavours().length ?? 0) > 0 ? true : undefined), { timeoutMs: 60_000 });
  return { cons, sn, prov, ...(cons2 === undefined ? {} : { cons2 }) };
}

export function rearOf(m: Member): RearService {
  const rear = m.controller.controller.rear;
  if (rear === undefined) throw new Error(`REAR is off on ${m.id}`);
  return rear;
}

export async function createSolver(kube: Kube, name: string, spec: Record<string, unknown>): Promise<void> {
  await kube.custom.createNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace: APPS, plural: 'solvers', body: { apiVersion: API_VERSION, kind: 'Solver', metadata: { name, namespace: APPS }, spec } });
}

export async function solverStatus(kube: Kube, name: string): Promise<Solver['status']> {
  const s = await kube.custom.getNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace: APPS, plural: 'solvers', name }) as Solver;
  return s.status;
}

export async function listed<T>(kube: Kube, plural: string, namespace = 'edgeshifu-system'): Promise<T[]> {
  const list = await kube.custom.listNamespacedCustomObject({ group: 'shifu.edgenesis.io', version: 'v1alpha1', namespace, plural }) as { items: T[] };
  return list.items;
}

export interface ThreeDomains { cons: Member; sn: Member; prov: Member; snC: Member; consC: Member }

/** A third domain too: sn-c its supernode, cons-c its member; the three supernodes know each other. */
export async function rearThreeDomains(t: ExecutionContext): Promise<ThreeDomains> {
  const common = ['--rear-reply-timeout-ms', '5000', '--rear-cache-ttl-seconds', '600'];
  const [cons, sn, prov, snC, consC] = await startFederation(t, [
    { id: 'cons-a', cpu: '1', memory: '2Gi', args: ['--rear-domain', 'domain-a', '--rear-supernode', 'sn-a', ...common] },
    { id: 'sn-a', cpu: '1', memory: '2Gi', args: ['--rear-domain', 'domain-a', '--rear-members', 'cons-a', '--rear-supernodes', 'domain-b=prov-b,domain-c=sn-c', ...common] },
    { id: 'prov-b', cpu: '8', memory: '16Gi', args: ['--rear-domain', 'domain-b', '--rear-supernodes', 'domain-a=sn-a,domain-c=sn-c', ...common] },
    { id: 'sn-c', cpu: '1', memory: '2Gi', args: ['--rear-domain', 'domain-c', '--rear-members', 'cons-c', '--rear-supernodes', 'domain-a=sn-a,domain-b=prov-b', ...common] },
    { id: 'cons-c', cpu: '1', memory: '2Gi', args: ['--rear-domain', 'domain-c', '--rear-supernode', 'sn-c', ...common] },
  ], { signed: true });
  if (cons === undefined || sn === undefined || prov === undefined || snC === undefined || consC === undefined) throw new Error('no federation');
  await waitFor('prov-b to sell its slice', () => ((rearOf(prov).market?.flavours().length ?? 0) > 0 ? true : undefined), { timeoutMs: 60_000 });
  return { cons, sn, prov, snC, consC };
}

/** cons-a's agent reserves 1000m of prov-b's flavour, found by discovery (no Solver). */
export async function reserveFromProv(cons: Member): Promise<{ buyer: RearNode; flavour: Flavour; transaction: Awaited<ReturnType<RearNode['reserve']>> }> {
  const buyer = rearOf(cons).node;
  const [flavour] = await waitFor('discovery to find prov-b', async () => { const f = await buyer?.discover({ bounds: { cpu: { min: 1000 } } }); return f !== undefined && f.length > 0 ? f : undefined; }, { timeoutMs: 60_000 });
  if (flavour === undefined || buyer === undefined) throw new Error('nothing found');
  const transaction = await buyer.reserve(flavour, { partition: { cpu: 1000, memory: 1024, pods: 1, storage: 0, gpu: 0 } });
  return { buyer, flavour, transaction };
}
