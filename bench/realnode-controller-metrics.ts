// What the run at scale reads besides the working set: the controller's V8 old generation (its
// own /metrics through the API server's pod proxy; controller/metrics.ts) against the old-space cap,
// and the API server's writes by resource (its apiserver_request_total), to count them per bundle.
import type { Kube } from '../test/support/cluster.ts';
import type { RealNodeCluster } from '../test/support/realnode/node.ts';
import { apiText, MIB } from './kubelet-summary.ts';

const SYSTEM = 'edgeshifu-system';
const CONTROLLER = 'app.kubernetes.io/name=edgeshifu-controller';

function gauge(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text);
  return m === null ? undefined : Number(m[1]);
}

export interface ControllerScrape {
  /** "old generation U MiB used (C committed) of the L MiB heap limit" */
  readonly heap: string;
  /** The controller's own writes by `verb kind` (edgeshifu_kube_writes_total), and `conflicts` (reconciles that lost a race). */
  readonly writes: Map<string, number>;
}

/** The controller's heap and writes, as its own scrape says (the pod proxy: no new route, no port opened). */
export async function controllerScrape(node: RealNodeCluster, kube: Kube): Promise<ControllerScrape> {
  // a reading missed (the pod rolling, the API server busy) must not end an hour's run
  return scrape(node, kube).catch((err: unknown) => ({ heap: `heap ? (${err instanceof Error ? err.message : String(err)})`, writes: new Map<string, number>() }));
}

async function scrape(node: RealNodeCluster, kube: Kube): Promise<ControllerScrape> {
  const writes = new Map<string, number>();
  const pods = (await kube.core.listNamespacedPod({ namespace: SYSTEM, labelSelector: CONTROLLER })).items.filter((p) => p.status?.phase === 'Running');
  const name = pods[0]?.metadata?.name;
  if (name === undefined) return { heap: 'heap ? (no controller pod running)', writes };
  const { status, body } = await apiText(node, `/api/v1/namespaces/${SYSTEM}/pods/${name}:8080/proxy/metrics`);
  const used = gauge(body, 'edgeshifu_nodejs_old_generation_used_bytes');
  if (status !== 200 || used === undefined) return { heap: `heap ? (/metrics answered ${status})`, writes };
  const size = gauge(body, 'edgeshifu_nodejs_old_generation_size_bytes') ?? NaN;
  const limit = gauge(body, 'edgeshifu_nodejs_heap_size_limit_bytes') ?? NaN;
  for (const line of body.split('\n')) {
    const write = /^edgeshifu_kube_writes_total\{verb="(\w+)",kind="(\w+)"[^}]*\} (\S+)$/.exec(line);
    if (write !== null) writes.set(`${write[1] ?? ''} ${write[2] ?? ''}`, Number(write[3]));
    const conflict = /^edgeshifu_reconcile_total\{[^}]*result="conflict"[^}]*\} (\S+)$/.exec(line);
    if (conflict !== null) writes.set('conflicts', (writes.get('conflicts') ?? 0) + Number(conflict[1]));
  }
  return { heap: `old generation ${(used / MIB).toFixed(1)} MiB used (${(size / MIB).toFixed(1)} committed) of the ${(limit / MIB).toFixed(0)} MiB heap limit`, writes };
}

/** The API server's writes so far (POST, PUT, PATCH, APPLY, DELETE; every client) by resource[/subresource]. */
export async function writesByResource(node: RealNodeCluster): Promise<Map<string, number>> {
  const { body } = await apiText(node, '/metrics');
  const counts = new Map<string, number>();
  for (const line of body.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    if (!/verb="(POST|PUT|PATCH|APPLY|DELETE)"/.test(line)) continue;
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
    const sub = /subresource="([^"]*)"/.exec(line)?.[1] ?? '';
    const key = sub === '' ? resource : `${resource}/${sub}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.split(' ').at(-1)));
  }
  return counts;
}

/** "N writes per bundle: deployments/status a, leases b, …": the writes since `before` over `bundles`, largest first. */
export function perBundle(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, bundles: number): string {
  const rows = [...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  // a conflict is a write already counted, answered 409
  const total = rows.reduce((a, [k, v]) => (k === 'conflicts' ? a : a + v), 0);
  const per = (v: number): string => (v / Math.max(1, bundles)).toFixed(2);
  return `${per(total)} writes per bundle: ${rows.slice(0, 10).map(([k, v]) => `${k} ${per(v)}`).join(', ')}`;
}
