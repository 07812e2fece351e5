// Two clusters for tests of one offloaded app: a is small, b has room; a's `shop` (db and api,
// api booting after db) is offloaded to b. The hooks record what a hears from b's host side and
// what b's host side hears from a, so a test can replay one of them.
import type { ExecutionContext } from 'ava';
import { waitFor } from '../support/wait.ts';
import { createApp, readApp, startFederation, twoComponentApp, type Member } from './support.ts';
import type { HostStatusMessage, LeaseMessage } from '../../controller/drone/messages/index.ts';
import type { Offloader } from '../../controller/offload/manager.ts';

export interface ShopFederation {
  readonly a: Member;
  readonly b: Member;
  readonly origin: Offloader;
  readonly host: Offloader;
}

/** a and b running, a having heard b's slice advert. */
export async function shopFederation(t: ExecutionContext): Promise<ShopFederation> {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '8', memory: '16Gi', pods: '200' }]);
  const origin = a?.controller.controller.offloader;
  const host = b?.controller.controller.offloader;
  if (a === undefined || b === undefined || origin === undefined || host === undefined) throw new Error('no federation');
  await waitFor('a to hear b', () => (origin.federation.agent.providers().includes('b') ? true : undefined), { timeoutMs: 30_000 });
  return { a, b, origin, host };
}

/** Every host report a takes in from now on. */
export function recordReports(origin: Offloader): HostStatusMessage[] {
  const reports: HostStatusMessage[] = [];
  const onHostStatus = origin.origin.onHostStatus.bind(origin.origin);
  origin.origin.onHostStatus = async (msg: HostStatusMessage) => {
    reports.push(msg);
    return onHostStatus(msg);
  };
  return reports;
}

/** Every lease b's host side takes in from now on. */
export function recordLeases(host: Offloader): LeaseMessage[] {
  const leases: LeaseMessage[] = [];
  const onLease = host.host.onLease.bind(host.host);
  host.host.onLease = async (msg: LeaseMessage) => {
    leases.push(msg);
    return onLease(msg);
  };
  return leases;
}

/** Creates `shop` with offload on at a, and waits until it is RUNNING. */
export async function runShop(a: Member): Promise<void> {
  const body = twoComponentApp('shop', { cpu: '100m', memory: '64Mi' }) as { spec: Record<string, unknown> };
  body.spec.offload = true;
  await createApp(a.kube, body);
  await waitFor('shop RUNNING', async () => ((await readApp(a.kube, 'shop'))?.status?.phase === 'RUNNING' ? true : undefined), { timeoutMs: 60_000 });
}
