// A Modbus RTU EdgeDevice on the real control plane with KWOK nodes, each with its own shifud
// (the node's /dev a folder of its own, --host-dev-root): the deviceShifu goes to the node whose
// shifud finds the port, with the port mounted; with no such node, Scheduled names the path and
// nothing is made; the port moving to another node moves the deviceShifu, and the port gone flags it.
import test from 'ava';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startController } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { fastConfig, startShifud } from '../shifud/harness.ts';
import { CONFIG_MAP, conditionOf, createDevice, deploymentOf, edgeCluster, nodeOf, readDevice, waitForCondition } from './fixtures.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';

const PORT = '/dev/ttyUSB0';
const rtuDevice = { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name: 'plc', namespace: 'devices' }, spec: {
  sku: 'plc', connection: 'Serial', protocol: 'Modbus', configMapName: CONFIG_MAP,
  protocolSettings: { ModbusSetting: { mode: 'RTU', serialPath: PORT, baudRate: 19200 } },
} };

test.serial('an RTU device runs on the node whose shifud finds its port, follows the port, and waits naming the path when no node has it', async (t) => {
  const { kube } = await edgeCluster(t);
  const devDirs: Record<string, string> = {};
  for (const name of ['edge-a', 'edge-b']) {
    await kube.addNode(name, { memory: '2Gi' });
    devDirs[name] = await mkdtemp(join(tmpdir(), `${name}-dev-`));
    await startShifud(t, kube, fastConfig(name, { hostDevRoot: devDirs[name] }));
  }
  t.teardown(async () => { for (const dir of Object.values(devDirs)) await rm(dir, { recursive: true, force: true }); });
  // the machine's /dev/null stands for the node's adapter: named by a path outside /dev, since an
  // absolute link into /dev is read in the node's own /dev (the folder), as in a pod
  const plug = async (node: string): Promise<void> => { await symlink('/proc/../dev/null', join(devDirs[node] ?? '', 'ttyUSB0')); };
  const unplug = async (node: string): Promise<void> => { await rm(join(devDirs[node] ?? '', 'ttyUSB0')); };
  await startController(t, kube);
  await createDevice(kube, rtuDevice);

  await waitForCondition(kube, 'plc', 'Scheduled', { status: 'False', reason: 'SerialPortNotFound' });
  // shifud's first probe may come after the controller's first look
  const waiting = await waitForCondition(kube, 'plc', 'Reachable', { status: 'False', reason: 'Unreachable' });
  t.regex(conditionOf(waiting, 'Scheduled')?.message ?? '', /no node has serial port \/dev\/ttyUSB0/);
  t.regex(conditionOf(waiting, 'Reachable')?.message ?? '', /serial port \/dev\/ttyUSB0 is not on this node/);
  t.is(await deploymentOf(kube, 'plc'), undefined, 'nothing is made while no node has the port');

  await plug('edge-a');
  const placed = await waitForCondition(kube, 'plc', 'Scheduled', { status: 'True' }).catch(async (err: unknown) => {
    const nodes = await kube.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'edgenodes' }) as { items: { metadata: { name: string }; status?: { devices?: unknown } }[] };
    t.log(JSON.stringify(nodes.items.map((n) => [n.metadata.name, n.status?.devices])));
    t.log(JSON.stringify((await readDevice(kube, 'plc')).status));
    throw err;
  });
  t.is(placed.status?.nodeName, 'edge-a');
  t.regex(conditionOf(await readDevice(kube, 'plc'), 'Reachable')?.message ?? '', /serial port \/dev\/ttyUSB0 is present/);
  const deployment = await waitFor('the Deployment on edge-a', async () => {
    const d = await deploymentOf(kube, 'plc');
    return nodeOf(d) === 'edge-a' ? d : undefined;
  });
  const pod = deployment.spec?.template.spec;
  t.like(pod?.volumes?.find((v) => v.name === 'serial-port')?.hostPath, { path: PORT, type: 'CharDevice' });
  t.true(pod?.containers[0]?.volumeMounts?.some((m) => m.name === 'serial-port' && m.mountPath === PORT));
  t.deepEqual(pod?.securityContext?.supplementalGroups, [20]);

  // the adapter is moved to the other node: the deviceShifu follows it
  await unplug('edge-a');
  await plug('edge-b');
  await waitFor('the Deployment to move to edge-b', async () => (nodeOf(await deploymentOf(kube, 'plc')) === 'edge-b' ? true : undefined));
  // the reconcile applies the Deployment first and writes the status after it
  const moved = await waitFor('the status to name edge-b', async () => {
    const device = await readDevice(kube, 'plc');
    return device.status?.nodeName === 'edge-b' ? device : undefined;
  });
  t.is(conditionOf(moved, 'Scheduled')?.reason, 'Rescheduled');

  // unplugged everywhere: flagged, naming the path
  await unplug('edge-b');
  const gone = await waitForCondition(kube, 'plc', 'Scheduled', { status: 'False', reason: 'SerialPortNotFound' });
  t.regex(conditionOf(gone, 'Scheduled')?.message ?? '', /\/dev\/ttyUSB0/);
});
