// Modbus RTU as a k3s operator runs it: an EdgeDevice whose serialPath is a serial port on the real
// node, the mock RTU device on its far end. The port is one end of a socat pseudo-terminal pair
// made on the host, named in /dev by a relative symlink as udev names an adapter
// (/dev/serial/by-id/...), root:dialout 0660, so only the pod's supplemental group lets deviceShifu
// open it. (/dev/pts/N itself cannot be mounted at the same path: the container's /dev/pts is a
// devpts of its own, where no mount point can be made.) shifud in its pod finds the port in the
// node's /dev, the controller places the deviceShifu on that node with the port mounted (non-root, restricted, a supplemental group), and the kubelet
// runs it: reads and writes go through the Service's ClusterIP. A serialPath that is a directory
// on the node gets a condition naming the path, and no Deployment.
import test from 'ava';
import { execFile } from 'node:child_process';
import { chmod, realpath, rm, symlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { ptyPair, rtuDevice } from '../deviceshifu/support/modbus.ts';
import type { Kube } from '../support/cluster.ts';
import type { RealNodeCluster } from '../support/realnode/node.ts';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import { applyObjects, diagnosis, httpGet, httpPost, readyPods, singleNodeWithDevices } from './support.ts';

let node: RealNodeCluster;
let kube: Kube;
const DEVICES = 'devices';
const NONROOT = 65532;
const DIALOUT = 20;
const run = promisify(execFile);

/**
 * The pty as a port in the host's /dev: its node made root:dialout 0660, and a relative symlink to
 * it as udev makes (/dev/serial/by-id/... -> ../../ttyUSB0). A pty opens only through its own devpts
 * node (another node of the same numbers answers EIO), so the symlink, not a copy, names it.
 */
async function serialPort(t: { teardown: (fn: () => Promise<void>) => void }, gateway: string, path: string): Promise<void> {
  const node = await realpath(gateway);
  await run('chown', [`0:${DIALOUT}`, node]);
  await chmod(node, 0o660);
  await symlink(relative('/dev', node), path);
  t.teardown(async () => { await rm(path, { force: true }); });
}

async function podsDiagnosis(namespace: string, selector: string): Promise<string> {
  const pods = (await kube.core.listNamespacedPod({ namespace, labelSelector: selector })).items;
  const parts = await Promise.all(pods.map(async (p) => diagnosis(kube, { namespace, pod: p.metadata?.name ?? '' })));
  const deployments = (await kube.apps.listNamespacedDeployment({ namespace, labelSelector: selector })).items;
  return [`${pods.length} pod(s), ${deployments.length} Deployment(s) for ${selector}`, ...deployments.map((d) => JSON.stringify(d.status?.conditions ?? [])), ...parts].join('\n');
}

test.serial.before(async () => {
  ({ node, kube } = await singleNodeWithDevices(DEVICES));
});
test.after.always(async () => { await (node as RealNodeCluster | undefined)?.stop(); });

interface DeviceStatus { status?: { edgedevicephase?: string; nodeName?: string; conditions?: { type: string; status: string; reason: string; message: string }[] } }

/** An RTU EdgeDevice on `serialPath` and its ConfigMap, as a user writes them. */
function rtuObjects(name: string, serialPath: string): object[] {
  const instructions = { instructions: {
    pressure: { readWrite: 'R', protocolPropertyList: { registerType: 'input', address: '2', dataType: 'float32' } },
    setpoint: { readWrite: 'RW', protocolPropertyList: { registerType: 'holding', address: '100', dataType: 'uint16' } },
  } };
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'deviceshifu' }, data: { instructions: stringify(instructions) } },
    { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name, namespace: DEVICES }, spec: {
      sku: 'modbus-plc', connection: 'Serial', protocol: 'Modbus', configMapName: name,
      protocolSettings: { ModbusSetting: { mode: 'RTU', unitId: 3, serialPath, baudRate: 19200, parity: 'none' } },
    } },
  ];
}

async function device(name: string): Promise<DeviceStatus> {
  return await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: DEVICES, plural: 'edgedevices', name }) as DeviceStatus;
}

type Condition = NonNullable<NonNullable<DeviceStatus['status']>['conditions']>[number];
const conditionOf = (d: DeviceStatus, type: string): Condition | undefined => d.status?.conditions?.find((c) => c.type === type);

test.serial('an RTU EdgeDevice on a serial port of the node: the controller\'s deviceShifu runs there with the port, and reads and writes registers through its ClusterIP', async (t) => {
  const pty = await ptyPair(t);
  const mock = await rtuDevice(t, pty.device, 3);
  const port = `/dev/ttyRTU${process.pid}`;
  await serialPort(t, pty.gateway, port);
  await applyObjects(kube, rtuObjects('rtu-plc', port));
  const reachable = await waitFor('shifud to find the serial port on the node', async () => {
    const c = conditionOf(await device('rtu-plc'), 'Reachable');
    return c?.status === 'True' ? c : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1000 });
  t.regex(reachable.message, new RegExp(`serial port ${port} is present \\(group ${DIALOUT} may open it`));
  const [pod] = await readyPods(kube, 'deviceshifu', 'app=rtu-plc-deployment').catch(async (err: unknown) => {
    t.log(await podsDiagnosis('deviceshifu', 'app=rtu-plc-deployment'));
    t.log(JSON.stringify((await device('rtu-plc')).status));
    throw err;
  });
  t.is(pod?.spec?.nodeName, node.nodeName, 'placed on the node that has the port');
  t.like(pod?.spec?.volumes?.find((v) => v.name === 'serial-port')?.hostPath, { path: port, type: 'CharDevice' });
  t.true(pod?.spec?.containers[0]?.volumeMounts?.some((m) => m.name === 'serial-port' && m.mountPath === port));
  t.deepEqual(pod?.spec?.securityContext?.supplementalGroups, [DIALOUT], 'dialout, the controller\'s default serial group');
  t.is(pod?.spec?.securityContext?.runAsUser, NONROOT);
  t.is(pod?.spec?.containers[0]?.securityContext?.privileged, undefined, 'no privilege');
  t.true(pod?.spec?.containers[0]?.securityContext?.readOnlyRootFilesystem);
  const service = await kube.core.readNamespacedService({ name: 'rtu-plc', namespace: 'deviceshifu' });
  const ip = service.spec?.clusterIP ?? '';
  const read = await waitFor('a read through the ClusterIP', async () => {
    const res = await httpGet(ip, 80, '/pressure');
    if (res.status !== 200) throw new Error(`${res.status} ${res.body.slice(0, 300)}`);
    return res;
  }, { timeoutMs: 60_000, intervalMs: 1000 }).catch(async (err: unknown) => {
    t.log(await diagnosis(kube, { namespace: 'deviceshifu', pod: pod?.metadata?.name ?? '', service: 'rtu-plc', logDirs: [node.logDir, join(node.cluster.dir, 'logs')] }));
    throw err;
  });
  t.is(JSON.parse(read.body), 1013.25, 'the mock\'s input registers 2-3 as a float32, over RTU');
  t.is((await httpPost(ip, 80, '/setpoint', '4242')).status, 200);
  t.is(mock.memory.holding[100], 4242, 'the write reached the device\'s holding register');
  t.is(JSON.parse((await httpGet(ip, 80, '/setpoint')).body), 4242);
  const placed = await device('rtu-plc');
  t.is(placed.status?.nodeName, node.nodeName);
});

test.serial('an RTU EdgeDevice whose serialPath is a directory on the node: Reachable says so, Scheduled names the path, and no Deployment is made', async (t) => {
  await applyObjects(kube, rtuObjects('rtu-dir', '/dev/pts'));
  const d = await waitFor('the conditions of a serialPath that is a directory', async () => {
    const got = await device('rtu-dir');
    const scheduled = conditionOf(got, 'Scheduled');
    const reachable = conditionOf(got, 'Reachable');
    return scheduled?.reason === 'SerialPortNotFound' && reachable?.status === 'False' ? { scheduled, reachable } : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1000 });
  t.regex(d.reachable.message, /\/dev\/pts is a directory/);
  t.regex(d.scheduled.message, /no node has serial port \/dev\/pts/);
  const deployments = await kube.apps.listNamespacedDeployment({ namespace: 'deviceshifu', labelSelector: 'app=rtu-dir-deployment' });
  t.is(deployments.items.length, 0);
});
