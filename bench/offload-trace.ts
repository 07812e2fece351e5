// Where an offloaded app's time goes, and what each app costs, for bench/offload.ts. Steps are
// what either cluster's caches see (the controllers' own informers), per app:
//   a: SCHEDULING (auction written) → PENDING (agreement written)
//   b: HostRequest made (ACK and admission), then per component, db before api (api waits for
//      db LAUNCHED): launch (the lease that says go, patched) → Deployment applied → Deployment
//      available (pod Running) → HostRequest LAUNCHED (status written) →
//   a: OffloadRequest LAUNCHED (host-status received, written); then RUNNING (origin status written)
// Steps are kept per component (`db`, `api`: the component's name before its `-<app>` suffix), so
// a step of one is never measured from a step of the other.
// A window of apps also counts each controller's reconciles, API writes and bus messages, and the
// event loop's delay: a cost that grows with the number of apps shows there.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { V1Deployment } from '@kubernetes/client-node';
import type { Informer } from '../shared/kube/informer.ts';
import type { Member } from '../test/offload/support.ts';
import type { Offloader } from '../controller/offload/manager.ts';
import { endpointFromKubeconfig, KubeApiError, KubeClient } from '../shared/kube/client.ts';

/** API requests by server and verb (`<server> <METHOD>`, and `<server> 409`), from every KubeClient in this process. */
const requests = new Map<string, number>();
const bump = (key: string): void => { requests.set(key, (requests.get(key) ?? 0) + 1); };

/** `hostrequests/status` of `/apis/g/v/namespaces/ns/hostrequests/x/status`. */
function resourceOf(path: string): string {
  const parts = (path.split('?')[0] ?? '').split('/').filter((p) => p !== '');
  let rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  return `${rest[0] ?? ''}${rest[2] === undefined ? '' : `/${rest[2]}`}`;
}

/** Every request counted so far by resource, per member (for the run's summary). */
export function requestsByResource(members: readonly Member[], apps: number): string {
  return members.map((m) => {
    const server = new URL(endpointFromKubeconfig(m.kube.kubeconfigPath).server).host;
    const rows = [...requests].filter(([k]) => k.startsWith(`${server} by-resource `)).sort(([, x], [, y]) => y - x);
    return `${m.id} API requests per app: ${rows.map(([k, n]) => `${k.slice(server.length + 13)} ${(n / apps).toFixed(1)}`).join(', ')}`;
  }).join('\n');
}

/** Counts the controllers' API requests (the bench's own client is not a KubeClient). */
export function countRequests(): void {
  const original = Reflect.get(KubeClient.prototype, 'request') as (this: KubeClient, ...args: Parameters<KubeClient['request']>) => Promise<unknown>;
  KubeClient.prototype.request = async function counted<T>(this: KubeClient, method: string, path: string, options?: Parameters<KubeClient['request']>[2]): Promise<T> {
    const server = (this as unknown as { url: URL }).url.host;
    bump(`${server} ${method}`);
    bump(`${server} by-resource ${method} ${resourceOf(path)}`);
    try {
      return await original.call(this, method, path, options) as T;
    } catch (err) {
      if (err instanceof KubeApiError && err.code === 409) {
        bump(`${server} 409`);
        bump(`${server} by-resource 409 ${resourceOf(path)}`);
      }
      throw err;
    }
  };
}

/** app index → step → first time seen (ms, performance.now()). */
export type Steps = Map<string, Map<string, number>>;

const APP = /app-(\d+)/;

function offloaderOf(m: Member): Offloader {
  const o = m.controller.controller.offloader;
  if (o === undefined) throw new Error(`${m.id} runs no offloading`);
  return o;
}

/** Records each step the first time it is seen, by app name (app-N). */
export function traceSteps(a: Member, b: Member): Steps {
  const steps: Steps = new Map();
  const mark = (name: string | undefined, step: string): void => {
    const app = name === undefined ? undefined : APP.exec(name)?.[0];
    if (app === undefined) return;
    const seen = steps.get(app) ?? new Map<string, number>();
    if (!seen.has(step)) seen.set(step, performance.now());
    steps.set(app, seen);
  };
  const oa = offloaderOf(a);
  // a hosted Deployment is named after its HostRequest (a hash), not after the app
  const appOf = new Map<string, { app: string; role: string }>();
  const ob = offloaderOf(b);
  for (const event of ['add', 'update'] as const) {
    oa.deployments.on(event, (d) => { if (d.status?.phase !== undefined) mark(d.metadata.name, `a ${d.status.phase}`); });
    oa.offloadRequests.on(event, (r) => { if (r.status?.phase === 'LAUNCHED') mark(r.metadata.name, `a oreq LAUNCHED ${roleOf(r.spec.component)}`); });
    ob.hostRequests.on(event, (r) => {
      const role = roleOf(r.spec.component);
      appOf.set(r.metadata.name ?? '', { app: r.spec.app, role });
      // made: once both are (the later sets it)
      mark(r.spec.app, `b hreq made ${r.spec.component}`);
      if (r.spec.launch === true) mark(r.spec.app, `b launch ${role}`);
      if (r.status?.phase === 'LAUNCHED') mark(r.spec.app, `b hreq LAUNCHED ${role}`);
    });
    const workloads = (ob as unknown as { workloads: Informer<V1Deployment> }).workloads;
    workloads.on(event, (d) => {
      const owner = appOf.get(d.metadata?.ownerReferences?.find((o) => o.kind === 'HostRequest')?.name ?? '');
      if (owner === undefined) return;
      mark(owner.app, `b deployment applied ${owner.role}`);
      if ((d.status?.availableReplicas ?? 0) >= 1) mark(owner.app, `b deployment available ${owner.role}`);
    });
  }
  return steps;
}

/** `db` of `db-12`: the bench's components by what they are, whatever app they belong to. */
function roleOf(component: string): string {
  return component.replace(/-\d+$/, '');
}

/** A component's steps on the way, db's then api's (api starts once db is LAUNCHED). */
const COMPONENT_STEPS = ['b launch', 'b deployment applied', 'b deployment available', 'b hreq LAUNCHED', 'a oreq LAUNCHED'];

/** The order steps are printed in: the app's critical path. */
export const STEP_ORDER = ['a SCHEDULING', 'a PENDING', 'b hreq made', ...['db', 'api'].flatMap((role) => COMPONENT_STEPS.map((s) => `${s} ${role}`)), 'a RUNNING'];

/** One app's steps, ms after its creation; `b hreq made` is the later of its two components'. */
export function appSteps(seen: Map<string, number> | undefined, start: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const [step, at] of seen ?? new Map<string, number>()) {
    const base = STEP_ORDER.find((s) => step === s || step.startsWith(`${s} `)) ?? step;
    out.set(base, Math.max(out.get(base) ?? 0, at - start));
  }
  return out;
}

const COUNTERS = ['edgeshifu_reconcile_total', 'edgeshifu_kube_writes_total', 'edgeshifu_bus_messages_published_total', 'edgeshifu_bus_messages_received_total'] as const;

function counterSum(m: Member, name: string, label?: string): number {
  const metrics = m.controller.registry.metrics().split('\n');
  let sum = 0;
  for (const line of metrics) {
    if (!(line.startsWith(`${name}{`) || line.startsWith(`${name} `)) || (label !== undefined && !line.includes(label))) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}

/** Counts per window of apps: each controller's reconciles (by controller), writes and bus messages; the event loop's delay. */
export class CostWindow {
  private readonly members: readonly Member[];
  private last = new Map<string, number>();
  private readonly delay = monitorEventLoopDelay({ resolution: 10 });

  constructor(members: readonly Member[]) {
    this.members = members;
    this.delay.enable();
    this.last = this.sample();
  }

  private sample(): Map<string, number> {
    const out = new Map<string, number>();
    for (const m of this.members) {
      for (const name of COUNTERS) out.set(`${m.id} ${name.replace('edgeshifu_', '').replace('_total', '')}`, counterSum(m, name));
      const server = new URL(endpointFromKubeconfig(m.kube.kubeconfigPath).server).host;
      for (const [key, n] of requests) if (key.startsWith(`${server} `) && !key.includes(' by-resource ')) out.set(`${m.id} api ${key.slice(server.length + 1)}`, n);
      for (const c of ['dronefederateddeployment', 'hostrequest']) out.set(`${m.id} reconcile ${c}`, counterSum(m, 'edgeshifu_reconcile_total', `controller="${c}"`));
    }
    return out;
  }

  /** What the last `apps` apps cost, per app, and the event loop's delay since the last call. */
  take(apps: number): string {
    const now = this.sample();
    const parts = [...now].filter(([, v]) => v > 0).map(([k, v]) => `${k} ${((v - (this.last.get(k) ?? 0)) / apps).toFixed(1)}`);
    this.last = now;
    const p99 = this.delay.percentile(99) / 1e6;
    const max = this.delay.max / 1e6;
    this.delay.reset();
    return `per app: ${parts.join(', ')}; event loop delay p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms`;
  }
}
