// The kubelet's summary API (/stats/summary through the API server's node proxy): each container's
// working set (memory-cgroup usage minus inactive file pages: what `kubectl top`, limits and
// eviction read) and the cgroup's anonymous memory (`rssBytes`).
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import type { RealNodeCluster } from '../test/support/realnode/node.ts';

export interface Summary { pods: { podRef: { name: string; namespace: string }; containers: { name: string; memory?: { workingSetBytes?: number; rssBytes?: number } }[] }[] }

export const MIB = 1024 * 1024;

export async function summary(node: RealNodeCluster): Promise<Summary> {
  const pki = node.cluster.certificates;
  const [ca, cert, key] = await Promise.all([pki.caCert, pki.adminCert, pki.adminKey].map((f) => readFile(f)));
  const url = new URL(node.cluster.server);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: `/api/v1/nodes/${node.nodeName}/proxy/stats/summary`, ca, cert, key }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => {
        try {
          resolve(JSON.parse(body) as Summary);
        } catch {
          reject(new Error(`stats/summary answered ${res.statusCode ?? 0}: ${body.slice(0, 200)}`));
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** MiB: the working set and anonymous memory of the first container of the pod whose name starts with `prefix`. */
export async function podMemory(node: RealNodeCluster, namespace: string, prefix: string): Promise<{ ws: number; rss: number } | undefined> {
  const pod = (await summary(node)).pods.find((p) => p.podRef.namespace === namespace && p.podRef.name.startsWith(prefix));
  const memory = pod?.containers[0]?.memory;
  return memory?.workingSetBytes === undefined ? undefined : { ws: memory.workingSetBytes / MIB, rss: (memory.rssBytes ?? 0) / MIB };
}
