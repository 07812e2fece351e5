// Joining two clusters is two commands: `edgeshifu federation join` for each, with --apply, against
// two real control planes. Then both controllers (on their ServiceAccount tokens, with what the
// federation-member overlay sets: the TLS Secret, the logins, the signing key, signatures
// required) serve mqtts on 127.0.0.1, reach each other through the federation CA, and each
// Federation turns Connected on the other's signed slice adverts; a job then offloads from a to b.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Secret } from '@kubernetes/client-node';
import { runCli } from '../../cli/main.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import type { Federation } from '../../controller/drone/neighbours.ts';
import { ownCluster, type Kube } from '../support/cluster.ts';
import { freePorts } from '../support/controlplane/ports.ts';
import { installCrds } from '../support/crds.ts';
import { startController } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { APPS, FAST_DRONE, serviceAccountClient } from './support.ts';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { env: {}, terminal: { out: (s) => { out += s; }, err: (s) => { err += s; } }, now: () => new Date() });
  return { code, out, err };
}

function secretText(secret: V1Secret, key: string): string {
  return Buffer.from(secret.data?.[key] ?? '', 'base64').toString('utf8');
}

async function connected(kube: Kube, name: string): Promise<Federation> {
  return waitFor(`Federation ${name} Connected`, async () => {
    const f = await kube.custom.getClusterCustomObject({ group: GROUP, version: VERSION, plural: 'federations', name }) as Federation;
    return f.status?.conditions?.some((c) => c.type === 'Connected' && c.status === 'True') === true ? f : undefined;
  }, { timeoutMs: 60_000 });
}

test('two `edgeshifu federation join --apply` commands join two clusters over mqtts with signed messages', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-join-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const [a, b] = [await ownCluster(t), await ownCluster(t)];
  const [portA = 0, portB = 0] = await freePorts(2);
  for (const [kube, node, cpu] of [[a.kube, 'a-node', '500m'], [b.kube, 'b-node', '8']] as const) {
    await installCrds(kube);
    for (const name of ['edgeshifu-system', 'deviceshifu', APPS]) await kube.core.createNamespace({ body: { metadata: { name } } });
    await kube.addNode(node, { cpu, memory: '16Gi' });
  }

  const fed = join(dir, 'federation');
  const joinA = await cli(['federation', 'join', 'a', '--address', '127.0.0.1', '--neighbour', `b=127.0.0.1:${String(portB)}`, '--dir', fed, '--apply', '--kubeconfig', a.kube.kubeconfigPath]);
  t.is(joinA.code, 0, joinA.err);
  t.regex(joinA.err, /made the federation CA and key/);
  t.regex(joinA.out, /a joined b on https:\/\/127\.0\.0\.1:\d+: 5 objects applied/);
  const joinB = await cli(['federation', 'join', 'b', '--address', '127.0.0.1', '--neighbour', `a=127.0.0.1:${String(portA)}`, '--allow-image', 'registry.example/', '--dir', fed, '--apply', '--kubeconfig', b.kube.kubeconfigPath]);
  t.is(joinB.code, 0, joinB.err);
  t.notRegex(joinB.err, /made the federation CA/, 'the second member uses the same CA');

  const argv = async (kube: Kube, id: string, port: number): Promise<string[]> => {
    const own = await kube.core.readNamespacedSecret({ namespace: 'edgeshifu-system', name: 'edgeshifu-drone' });
    return [
      '--drone-cluster', id, '--drone-broker-listen', `127.0.0.1:${String(port)}`, '--drone-tls-secret', 'edgeshifu-system/edgeshifu-drone-tls',
      '--drone-users-secret', 'edgeshifu-system/edgeshifu-drone-users', `--drone-password=${secretText(own, 'password')}`,
      `--drone-signing-key=${secretText(own, 'signing-key')}`, '--drone-require-signatures', '--drone-public-address', '192.0.2.1', ...FAST_DRONE,
    ];
  };
  const running = [];
  for (const [kube, id, port] of [[a.kube, 'a', portA], [b.kube, 'b', portB]] as const) {
    const controller = await startController(t, kube, await argv(kube, id, port), await serviceAccountClient(kube));
    await controller.controller.offloading;
    running.push(controller);
  }
  t.regex(running[0]?.controller.offloader?.federation.url ?? '', /^mqtts:\/\/127\.0\.0\.1:/);
  t.deepEqual(running[0]?.controller.offloader?.federation.signing, { signs: true, requires: true });
  const atA = await connected(a.kube, 'b');
  t.is(atA.spec.brokerUrl, `mqtts://127.0.0.1:${String(portB)}`);
  await connected(b.kube, 'a');

  await a.kube.custom.createNamespacedCustomObject({
    group: GROUP, version: VERSION, plural: 'dronefederateddeployments', namespace: APPS,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'DroneFederatedDeployment', metadata: { name: 'web' }, spec: { offload: true, components: [{ name: 'api', ports: [{ name: 'http', port: 8080 }], template: { spec: { template: { spec: { containers: [{ name: 'api', image: 'registry.example/api:1', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] } } } } }] } },
  });
  const placed = await waitFor('web placed on b', async () => {
    const d = await a.kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'dronefederateddeployments', namespace: APPS, name: 'web' }) as { status?: { phase?: string; components?: Array<{ cluster?: string }> } };
    return d.status?.components?.[0]?.cluster === 'b' ? d : undefined;
  }, { timeoutMs: 60_000 });
  t.not(placed.status?.phase, 'FAILED');
});
