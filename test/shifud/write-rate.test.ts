// The EdgeNode status write rate is bounded under a noisy sample stream: writes are counted both
// at the client and as resourceVersion changes seen by a watch on the real API server.
import test from 'ava';
import { KubeClient } from '../../shared/kube/client.ts';
import { Informer } from '../../shared/kube/informer.ts';
import { EDGE_NODE, GROUP, VERSION } from '../../shared/crds/resources.ts';
import { ApiGate } from '../../shifud/api-gate.ts';
import { KubeEdgeNodeClient } from '../../shifud/kube-clients.ts';
import { NodeReporter } from '../../shifud/node-reporter.ts';
import type { EdgeNode, EdgeNodeStatusApply } from '../../shifud/node-status.ts';
import type { NodeSample } from '../../shifud/sample.ts';
import type { Thresholds } from '../../shifud/thresholds.ts';
import { installCrds } from '../support/crds.ts';
import { sharedKube, uniqueName, type Kube } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { deleteEdgeNode, nodeSample, quietLogger } from './harness.ts';

class CountingClient extends KubeEdgeNodeClient {
  applies = 0;

  override async applyStatus(body: EdgeNodeStatusApply): Promise<EdgeNode> {
    this.applies += 1;
    return super.applyStatus(body);
  }
}

const THRESHOLDS: Thresholds = { cpu: 0.1, memory: 0.05, disk: 0.05, heartbeatMs: 60_000, minIntervalMs: 30_000 };

/** Feeds one sample per simulated second and returns how many writes the API server saw. */
async function feed(kube: Kube, samples: (second: number) => NodeSample, seconds: number): Promise<{ applies: number; updates: number }> {
  const node = uniqueName('shifud-rate');
  const informer = new Informer<EdgeNode>({
    kc: kube.kc, path: `/apis/${GROUP}/${VERSION}/${EDGE_NODE.plural}`, fieldSelector: `metadata.name=${node}`,
    list: async () => await kube.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: EDGE_NODE.plural, fieldSelector: `metadata.name=${node}` }) as never,
  });
  let updates = 0;
  informer.on('update', () => { updates += 1; });
  await informer.start();
  const kubeClient = KubeClient.fromKubeconfig(kube.kubeconfigPath);
  try {
    let now = Date.now();
    const client = new CountingClient(kubeClient);
    const reporter = new NodeReporter({ nodeName: node, client, thresholds: THRESHOLDS, gate: new ApiGate(quietLogger, () => now), logger: quietLogger, devices: () => [], now: () => now });
    for (let second = 0; second < seconds; second += 1) {
      now += 1000;
      await reporter.report(samples(second));
    }
    // every write after the first (which created the status) is one resourceVersion change
    await waitFor('the watch to see every write', () => updates >= client.applies ? true : undefined);
    return { applies: client.applies, updates };
  } finally {
    kubeClient.close();
    await informer.stop();
    await deleteEdgeNode(kube, node);
  }
}

const noisy = (second: number): NodeSample => nodeSample({
  cpu: { cores: 4, loadPercent: second % 2 === 0 ? 5 : 95 },
  memory: { totalBytes: 8 * 2 ** 30, availableBytes: (second % 3 + 1) * 2 ** 30 },
});

test('a noisy sample stream is written at most once per minimum interval', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const { applies, updates } = await feed(kube, noisy, 600);
  // 600 samples, each a big change: one write at the start, then one per 30 s
  t.is(applies, 20);
  t.is(updates, applies, 'each write is exactly one resourceVersion change on the server');
});

test('a steady node is written only on the heartbeat', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const { applies, updates } = await feed(kube, () => nodeSample(), 600);
  t.is(applies, 10, 'one write per 60 s heartbeat');
  t.is(updates, applies);
});

test('a meaningful change is written as soon as the minimum interval allows', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  // steady for 100 s, then memory drops by half: written at 100 s (heartbeats at 0 and 60)
  const step = (second: number): NodeSample => second < 100 ? nodeSample() : nodeSample({ memory: { totalBytes: 8 * 2 ** 30, availableBytes: 3 * 2 ** 30 } });
  const { applies } = await feed(kube, step, 110);
  t.is(applies, 3);
});
