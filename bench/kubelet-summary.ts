// The kubelet's summary API (/stats/summary through the API server's node proxy): each container's
// working set (memory-cgroup usage minus inactive file pages: what `kubectl top`, limits and
// eviction read) and its RSS (`rssBytes`: the cgroup's anonymous memory, total_rss on cgroup v1).
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import type { RealNodeCluster } from '../test/support/realnode/node.ts';

export interface Summary { pods: { podRef: { name: string; namespace: string }; containers: { name: string; memory?: { workingSetBytes?: number; rssBytes?: number } }[] }[] }

export const MIB = 1024 * 1024;

/** GET a path of the API server with the cluster's admin certificate; the body as text. */
export async function apiText(node: RealNodeCluster, path: string): Promise<{ status: number; body: string }> {
  const pki = node.cluster.certificates;
  const [ca, cert, key] = await Promise.all([pki.caCert, pki.adminCert, pki.adminKey].map((f) => readFile(f)));
  const url = new URL(node.cluster.server);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, ca, cert, key }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => { resolve({ status: res.statusCode ?? 0, body }); });
    });
    req.on('error', reject);
    req.end();
  });
}

export async function summary(node: RealNodeCluster): Promise<Summary> {
  const { status, body } = await apiText(node, `/api/v1/nodes/${node.nodeName}/proxy/stats/summary`);
  try {
    return JSON.parse(body) as Summary;
  } catch {
    throw new Error(`stats/summary answered ${status}: ${body.slice(0, 200)}`);
  }
}

/** MiB: the working set and RSS (rssBytes) of the first container of the pod whose name starts with `prefix`. */
export async function podMemory(node: RealNodeCluster, namespace: string, prefix: string): Promise<{ ws: number; rss: number } | undefined> {
  const pod = (await summary(node)).pods.find((p) => p.podRef.namespace === namespace && p.podRef.name.startsWith(prefix));
  const memory = pod?.containers[0]?.memory;
  return memory?.workingSetBytes === undefined ? undefined : { ws: memory.workingSetBytes / MIB, rss: (memory.rssBytes ?? 0) / MIB };
}
