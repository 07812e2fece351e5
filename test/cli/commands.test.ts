// Every `edgeshifu` command run as a process of its own against a real control plane with the
// real controller running (its own process), as a user at a terminal would: status, device add
// (short form and a Shifu folder), device list, edgemap, call against a real deviceShifu, device rm.
import test from 'ava';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Kube } from '../support/cluster.ts';
import { startCluster, type TestCluster } from '../support/controlplane/cluster.ts';
import { controllerProcess } from '../support/controller.ts';
import { freePort } from '../support/controlplane/ports.ts';
import { installCrds } from '../support/crds.ts';
import { DevelopmentRunner } from '../support/localstack/runner.ts';
import { shifuExample } from '../support/shifu/index.ts';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { createLogger } from '../../shared/log.ts';
import { startMockDevice } from '../../deviceshifu/mockdevice/start.ts';
import { STATUSES } from '../../deviceshifu/mockdevice/http-device.ts';
import type { EdgeDevice } from '../../cli/format/devices.ts';
import type { StatusReport } from '../../cli/format/status.ts';
import type { EdgeMapSnapshot } from '../../edgemap/snapshot.ts';
import { edgeshifu, shown, type CliResult } from './run.ts';

interface Setup {
  readonly cluster: TestCluster;
  readonly kube: Kube;
  readonly env: NodeJS.ProcessEnv;
  readonly controllerUrl: string;
}

let setup: Setup | undefined;
/** Run after the tests, last first (hooks cannot use t.teardown). */
const stoppers: (() => Promise<void>)[] = [];

function ready(): Setup {
  if (setup === undefined) throw new Error('the cluster did not start');
  return setup;
}

test.before(async () => {
  const cluster = await startCluster();
  stoppers.push(() => cluster.stop());
  const kube = new Kube(cluster.kubeconfigPath);
  await installCrds(kube);
  for (const name of ['devices', 'deviceshifu']) await kube.core.createNamespace({ body: { metadata: { name } } });
  await kube.addNode('edge-1', { cpu: '4', memory: '4Gi' });
  const port = await freePort();
  const controller = controllerProcess(kube, join(cluster.dir, 'logs', 'controller.log'), ['--port', String(port), '--no-leader-election']);
  controller.start();
  stoppers.push(() => controller.stop());
  const controllerUrl = `http://127.0.0.1:${String(port)}`;
  await waitFor('the controller to be ready', async () => ((await fetch(`${controllerUrl}/readyz`)).ok ? true : undefined), {
    timeoutMs: 60_000, abortIf: () => (controller.running ? undefined : `it exited:\n${controller.tail()}`),
  });
  setup = { cluster, kube, controllerUrl, env: { KUBECONFIG: cluster.kubeconfigPath, EDGESHIFU_CONTROLLER: controllerUrl } };
});

test.after.always(async () => {
  for (const stop of stoppers.reverse()) await stop();
});

async function cli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return edgeshifu(args, { ...ready().env, ...env });
}

async function readDevice(kube: Kube, name: string, namespace = 'devices'): Promise<EdgeDevice | undefined> {
  return await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'edgedevices', name }).catch(() => undefined) as EdgeDevice | undefined;
}

async function deploymentExists(kube: Kube, device: string): Promise<boolean> {
  return kube.apps.readNamespacedDeployment({ namespace: 'deviceshifu', name: `${device}-deployment` }).then(() => true, () => false);
}

test.serial('status shows the API server, the controller leading, the node and no devices, as text and as JSON', async (t) => {
  const { cluster, kube, controllerUrl } = ready();
  // the API server answers 503 for a CRD's objects for a moment after the CRD is created
  const result = await waitFor('status to read every part', async () => {
    const r = await cli(['status']);
    return r.code === 0 ? r : undefined;
  }, { timeoutMs: 60_000, intervalMs: 500 });
  t.true(result.stdout.startsWith(`kubernetes  ${cluster.server}  reachable (kubeconfig ${cluster.kubeconfigPath}, context ${kube.kc.getCurrentContext()})\ncontroller  ${controllerUrl}  ready, leading`), shown(result));
  t.regex(result.stdout, /NODES\nNAME .*\nedge-1 +True +yes +no/);
  t.regex(result.stdout, /DEVICES\nno EdgeDevices/);
  t.regex(result.stdout, /FEDERATION PEERS\nno federation peers/);
  const json = await cli(['status', '-o', 'json']);
  t.is(json.code, 0, shown(json));
  const report = JSON.parse(json.stdout) as StatusReport;
  t.like(report, { kubernetes: { server: cluster.server, reachable: true }, controller: { where: controllerUrl, reachable: true, ready: true, leading: true, edgeDevices: 0 }, devices: [], federation: [], problems: [] });
  t.deepEqual(report.nodes.map((n) => n.name), ['edge-1']);
});

test.serial('device add (short form) writes what a Shifu user would, and the controller creates its deviceShifu', async (t) => {
  const { kube } = ready();
  const added = await cli(['device', 'add', 'thermo', '--protocol', 'HTTP', '--address', '10.0.0.5:8080', '-i', 'read_value:R', '-i', 'get_status:R', '--telemetry', 'get_status:1000', '--node', 'edge-1']);
  t.is(added.code, 0, shown(added));
  t.is(added.stdout, 'configmap deviceshifu/thermo-configmap applied\nedgedevice devices/thermo applied\n');
  // the objects as the user would see them with kubectl, before the controller has done anything with them
  const configMap = await kube.core.readNamespacedConfigMap({ namespace: 'deviceshifu', name: 'thermo-configmap' });
  t.deepEqual(Object.keys(configMap.data ?? {}).sort(), ['driverProperties', 'instructions', 'telemetries']);
  t.regex(configMap.data?.instructions ?? '', /read_value:\n {4}readWrite: R/);
  t.like(await readDevice(kube, 'thermo'), { spec: { protocol: 'HTTP', address: '10.0.0.5:8080', attachedNode: 'edge-1', configMapName: 'thermo-configmap' } });
  await waitFor('the controller to create the deviceShifu Deployment of thermo', async () => ((await deploymentExists(kube, 'thermo')) ? true : undefined), { timeoutMs: 60_000 });
  const listed = await waitFor('device list to show thermo placed on edge-1', async () => {
    const r = await cli(['device', 'list', '-o', 'json']);
    const rows = JSON.parse(r.stdout || '[]') as { name: string; node?: string }[];
    return rows.some((row) => row.name === 'thermo' && row.node === 'edge-1') ? rows : undefined;
  }, { timeoutMs: 60_000, intervalMs: 500 });
  t.like(listed.find((r) => r.name === 'thermo'), { namespace: 'devices', protocol: 'HTTP', address: '10.0.0.5:8080', configMap: 'thermo-configmap' });
  const text = await cli(['device', 'list', '-n', 'devices']);
  t.regex(text.stdout, /^NAMESPACE +NAME +PROTOCOL +ADDRESS +NODE +PHASE +CONDITIONS +AGE\ndevices +thermo +HTTP +10\.0\.0\.5:8080 +edge-1 /, shown(text));
  t.regex((await cli(['device', 'list', '-n', 'elsewhere'])).stdout, /no EdgeDevices/);
});

test.serial('device add is idempotent (it applies), and --dry-run prints the objects without applying them', async (t) => {
  const { kube } = ready();
  const dry = await cli(['device', 'add', 'dry', '--protocol', 'HTTP', '--address', '10.0.0.9:80', '-i', 'read_value', '--dry-run']);
  t.is(dry.code, 0, shown(dry));
  t.regex(dry.stdout, /^apiVersion: v1\nkind: ConfigMap\n[\s\S]*---\napiVersion: shifu.edgenesis.io\/v1alpha1\nkind: EdgeDevice\n/);
  t.is(await readDevice(kube, 'dry'), undefined, 'nothing applied');
  const again = await cli(['device', 'add', 'thermo', '--protocol', 'HTTP', '--address', '10.0.0.6:8080', '-i', 'read_value:R', '-i', 'get_status:R', '--node', 'edge-1', '-o', 'json']);
  t.is(again.code, 0, shown(again));
  const applied = JSON.parse(again.stdout) as { kind: string; metadata: Record<string, unknown> }[];
  t.deepEqual(applied.map((o) => o.kind), ['ConfigMap', 'EdgeDevice']);
  t.false(applied.some((o) => 'managedFields' in o.metadata), 'the API server\'s bookkeeping is not shown');
  t.like(await readDevice(kube, 'thermo'), { spec: { address: '10.0.0.6:8080' } });
});

test.serial('device add --from-dir applies a Shifu example folder, skipping Shifu\'s own deviceShifu, and --wait waits for it', async (t) => {
  const { kube } = ready();
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-cli-shifu-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'thermometer-edgedevice.yaml'), stringify(shifuExample('thermometer')[0]));
  await writeFile(join(dir, 'deviceshifu-thermometer-configmap.yaml'), stringify(shifuExample('thermometer-configmap')[0]));
  await writeFile(join(dir, 'deviceshifu-thermometer-deployment.yaml'), stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'deviceshifu-thermometer-deployment', namespace: 'deviceshifu' },
    spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'deviceshifu-http', image: 'edgehub/deviceshifu-http-http:nightly' }] } } },
  }));
  const added = await cli(['device', 'add', '--from-dir', dir, '--wait', '--timeout', '90']);
  t.is(added.code, 0, shown(added));
  t.is(added.stdout, [
    'configmap deviceshifu/thermometer-configmap-0.0.1 applied',
    'edgedevice devices/edgedevice-thermometer applied',
    'devices/edgedevice-thermometer: deviceShifu ready on edge-1',
    '',
  ].join('\n'));
  t.regex(added.stderr, /EdgeDevice edgedevice-thermometer: spec.configMapName set to thermometer-configmap-0.0.1/);
  t.regex(added.stderr, /skipped Deployment deviceshifu\/deviceshifu-thermometer-deployment .*: edgeshifu's controller writes the deviceShifu itself/);
  t.regex(added.stderr, /devices\/edgedevice-thermometer: node edge-1, phase Pending, .*BundleReady/, 'progress while waiting');
  t.like(await readDevice(kube, 'edgedevice-thermometer'), { spec: { configMapName: 'thermometer-configmap-0.0.1' }, status: { nodeName: 'edge-1' } });
  t.true(await deploymentExists(kube, 'edgedevice-thermometer'));
  await t.throwsAsync(kube.apps.readNamespacedDeployment({ namespace: 'deviceshifu', name: 'deviceshifu-thermometer-deployment' }), undefined, 'Shifu\'s own Deployment was not applied');
  const mixed = await cli(['device', 'add', 'x', '--from-dir', dir, '--protocol', 'HTTP']);
  t.is(mixed.code, 2, shown(mixed));
  t.regex(mixed.stderr, /--from-dir takes everything from the folder: drop x, --protocol/);
});

test.serial('edgemap prints the topology as text, JSON and Graphviz DOT', async (t) => {
  const snapshot = await waitFor('the edgeMap to place both devices on edge-1', async () => {
    const r = await cli(['edgemap', '-o', 'json']);
    const map = JSON.parse(r.stdout || '{}') as EdgeMapSnapshot;
    const placed = map.vertices.filter((v) => v.kind === 'edgeDevice' && v.attributes.nodeName === 'edge-1');
    return placed.length === 2 ? map : undefined;
  }, { timeoutMs: 60_000, intervalMs: 500 });
  t.deepEqual(snapshot.vertices.map((v) => `${v.kind} ${v.key}`), ['edgeDevice devices/edgedevice-thermometer', 'edgeDevice devices/thermo', 'edgeNode edge-1']);
  const text = await cli(['edgemap']);
  t.is(text.code, 0, shown(text));
  t.regex(text.stdout, /^edgeMap \(seq \d+\): 1 node, 2 devices, 0 remote clusters, 2 links\n\nedge-1 {2}Ready\n {2}devices\/edgedevice-thermometer {2}\w+ {2}HTTP {2}http:\/\/edgedevice-thermometer\.deviceshifu\.svc {2}\(Ethernet\)\n {2}devices\/thermo /, shown(text));
  const dot = await cli(['edgemap', '--output', 'dot']);
  t.is(dot.code, 0, shown(dot));
  t.regex(dot.stdout, /^graph edgemap \{/);
  t.regex(dot.stdout, /"devices\/thermo" -- "edge-1"|"devices\/thermo" \[/);
  t.true(dot.stdout.includes('"edge-1" [kind="edgeNode", phase="Ready"'), dot.stdout);
});

test.serial('call reaches a real deviceShifu, run by the local stack\'s development runner, and reports its refusals', async (t) => {
  t.timeout(5 * 60_000);
  const { cluster, kube } = ready();
  await kube.addNode('edge-run', { cpu: '4', memory: '4Gi' });
  const mock = await startMockDevice('thermometer', { host: '127.0.0.1', port: 0 });
  t.teardown(() => mock.close());
  const logFile = createWriteStream(join(cluster.dir, 'logs', 'runner.log'), { flags: 'a' });
  // the runner writes deviceshifus.json next to the cluster's kubeconfig, as in the local stack
  const runner = new DevelopmentRunner({
    kc: kube.kc, core: kube.core, kubeconfigPath: kube.kubeconfigPath, namespace: 'deviceshifu', nodeName: 'edge-run', dir: cluster.dir,
    logger: createLogger('runner', { destination: logFile }),
  });
  t.teardown(async () => { await runner.stop(); logFile.end(); });
  await runner.start();
  const added = await cli(['device', 'add', 'probe', '--protocol', 'HTTP', '--address', mock.address, '-i', 'read_value:R', '-i', 'get_status:R', '--node', 'edge-run']);
  t.is(added.code, 0, shown(added));

  const first = await waitFor('the deviceShifu of probe to answer through the CLI', async () => {
    const r = await cli(['call', 'probe', 'read_value']);
    return r.code === 0 ? r : undefined;
  }, { timeoutMs: 180_000, intervalMs: 1000 });
  t.regex(first.stdout, /^\d+$/);
  t.true(Number(first.stdout) >= 10 && Number(first.stdout) <= 30, first.stdout);

  const json = await cli(['call', 'probe', 'get_status', '--param', 'detail=1', '-o', 'json']);
  t.is(json.code, 0, shown(json));
  const reply = JSON.parse(json.stdout) as { status: number; body: string };
  t.is(reply.status, 200);
  t.true((STATUSES as readonly string[]).includes(reply.body), reply.body);

  const refused = await cli(['call', 'probe', 'read_value', '--method', 'POST', '--data', '42']);
  t.is(refused.code, 1, shown(refused));
  t.regex(refused.stderr, /the deviceShifu of probe answered POST \/read_value with HTTP 405: .*read_value is R/);
  const unknown = await cli(['call', 'probe', 'no_such_instruction']);
  t.is(unknown.code, 1, shown(unknown));
  t.regex(unknown.stderr, /HTTP 404/);
  const ghost = await cli(['call', 'ghost', 'read_value']);
  t.is(ghost.code, 1, shown(ghost));
  t.regex(ghost.stderr, /the local stack runs no deviceShifu for ghost: .* Running: devices\/probe/);
});

test.serial('call on a cluster goes through the API server\'s service proxy and says what is missing', async (t) => {
  const { cluster, kube } = ready();
  // the same cluster seen from a kubeconfig with no local stack next to it: a real cluster's view
  const elsewhere = await mkdtemp(join(tmpdir(), 'edgeshifu-cli-kubeconfig-'));
  t.teardown(() => rm(elsewhere, { recursive: true, force: true }));
  await mkdir(elsewhere, { recursive: true });
  await copyFile(cluster.kubeconfigPath, join(elsewhere, 'config'));
  const env = { KUBECONFIG: join(elsewhere, 'config') };
  const ghost = await cli(['call', 'ghost', 'read_value'], env);
  t.is(ghost.code, 1, shown(ghost));
  t.regex(ghost.stderr, /cannot reach the deviceShifu Service deviceshifu\/ghost through the API server: services "ghost" not found; is there an EdgeDevice named ghost/);
  await kube.core.createNamespacedService({ namespace: 'deviceshifu', body: { metadata: { name: 'idle' }, spec: { selector: { app: 'nothing-runs-this' }, ports: [{ port: 80, targetPort: 8080 }] } } });
  const idle = await cli(['call', 'idle', 'read_value'], env);
  t.is(idle.code, 1, shown(idle));
  t.regex(idle.stderr, /deviceshifu\/idle through the API server: no endpoints available for service "idle"; its deviceShifu is not serving yet/);
});

test.serial('device rm removes the EdgeDevice and the ConfigMap it wrote; the controller removes the deviceShifu', async (t) => {
  const { kube } = ready();
  const removed = await cli(['device', 'rm', 'thermo', '--wait']);
  t.is(removed.code, 0, shown(removed));
  t.is(removed.stdout, 'edgedevice devices/thermo deleted\nconfigmap deviceshifu/thermo-configmap deleted\nedgedevice devices/thermo gone, and its deviceShifu with it\n');
  t.is(await readDevice(kube, 'thermo'), undefined);
  await t.throwsAsync(kube.core.readNamespacedConfigMap({ namespace: 'deviceshifu', name: 'thermo-configmap' }));
  await waitFor('the controller to remove the deviceShifu of thermo', async () => ((await deploymentExists(kube, 'thermo')) ? undefined : true), { timeoutMs: 60_000 });

  const shifu = await cli(['device', 'rm', 'edgedevice-thermometer', '-n', 'devices', '-o', 'json']);
  t.is(shifu.code, 0, shown(shifu));
  t.deepEqual(JSON.parse(shifu.stdout), { namespace: 'devices', name: 'edgedevice-thermometer', done: [
    'edgedevice devices/edgedevice-thermometer deleted',
    'configmap deviceshifu/thermometer-configmap-0.0.1 deleted',
  ] });
  await t.throwsAsync(kube.core.readNamespacedConfigMap({ namespace: 'deviceshifu', name: 'thermometer-configmap-0.0.1' }), undefined, 'device add --from-dir wrote it, so device rm removes it');
  const ghost = await cli(['device', 'rm', 'ghost']);
  t.is(ghost.code, 1, shown(ghost));
  t.regex(ghost.stderr, /no EdgeDevice named ghost \(edgeshifu device list shows them\)/);
});

test.serial('device add into a namespace that does not exist says how to fix it; --kubeconfig works as the flag', async (t) => {
  const { cluster } = ready();
  const result = await edgeshifu(['device', 'add', 'lost', '--protocol', 'HTTP', '--address', '10.0.0.7:80', '-i', 'read_value', '-n', 'nowhere', '--kubeconfig', cluster.kubeconfigPath]);
  t.is(result.code, 1, shown(result));
  t.regex(result.stderr, /cannot apply EdgeDevice nowhere\/lost: namespaces "nowhere" not found: create the namespace \(kubectl create namespace nowhere\) or pass --namespace/);
});
