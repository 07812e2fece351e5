// The factory protocols on the real node: deviceShifus the controller makes from the image built
// here, run by the kubelet, talking to their mock devices in pods through the CNI. LwM2M: the mock
// client in a pod registers over CoAP on UDP with its deviceShifu's Service (by DNS name, through
// kube-proxy), and a GET of the instruction through the Service's ClusterIP is a Read of the
// client's resource. Modbus RTU: serialport's native binding in the image, a deviceShifu pod
// (non-root, restricted) given one end of a socat pseudo-terminal pair made on the host, the mock
// device on the other end.
import test from 'ava';
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ptyPair, rtuDevice } from '../deviceshifu/support/modbus.ts';
import type { Kube } from '../support/cluster.ts';
import type { RealNodeCluster } from '../support/realnode/node.ts';
import { waitFor } from '../support/wait.ts';
import { GROUP, VERSION } from '../../shared/crds/resources.ts';
import type { Lwm2mRegistration } from '../../shared/crds/lwm2m-status.ts';
import { BENCH_PROTOCOLS, deviceName, protocolObjects } from '../../bench/realnode-devices.ts';
import { applyObjects, diagnosis, httpGet, httpPost, IMAGE, readyPods, singleNodeWithDevices } from './support.ts';

let node: RealNodeCluster;
let kube: Kube;
const DEVICES = 'devices';

test.serial.before(async () => {
  ({ node, kube } = await singleNodeWithDevices(DEVICES));
});
test.after.always(async () => { await (node as RealNodeCluster | undefined)?.stop(); });

test.serial('LwM2M: the mock client in a pod registers with its deviceShifu over UDP through the Service, and GET /temperature reads its resource', async (t) => {
  const lwm2m = BENCH_PROTOCOLS.find((p) => p.id === 'lwm2m')!;
  const name = deviceName(lwm2m);
  await applyObjects(kube, protocolObjects(lwm2m, DEVICES));
  const [pod] = await readyPods(kube, 'deviceshifu', `app=${name}-deployment`);
  t.is(pod?.spec?.nodeName, node.nodeName, 'the kubelet runs the LwM2M deviceShifu');
  const [mock] = await readyPods(kube, DEVICES, 'app=mock-lwm2m');
  t.is(mock?.spec?.nodeName, node.nodeName, 'the mock client runs as a pod from the same image');
  const service = await kube.core.readNamespacedService({ name, namespace: 'deviceshifu' });
  t.deepEqual(service.spec?.ports?.filter((p) => p.protocol === 'UDP').map((p) => [p.name, p.port]), [['coap', 5683]], 'the Service carries CoAP on UDP 5683');
  const ip = service.spec?.clusterIP ?? '';
  // a client that registered before the Service answered tries again at its next Update (30 s)
  const answer = await waitFor('the LwM2M deviceShifu to answer through its ClusterIP', async () => {
    const res = await httpGet(ip, 80, '/temperature');
    if (res.status !== 200) throw new Error(`${res.status} ${res.body.slice(0, 300)}`);
    return res;
  }, { timeoutMs: 120_000, intervalMs: 1000 }).catch(async (err: unknown) => {
    t.log(await diagnosis(kube, { namespace: 'deviceshifu', pod: pod?.metadata?.name ?? '', service: name, logDirs: [node.logDir, join(node.cluster.dir, 'logs')] }));
    t.log(await diagnosis(kube, { namespace: DEVICES, pod: mock?.metadata?.name ?? '' }));
    throw err;
  });
  const value = Number(answer.body.trim());
  t.true(value >= 20 && value <= 25, `the mock's temperature (20-25 °C), got ${answer.body}`);
  const device = await waitFor('the registration in the EdgeDevice status', async () => {
    const d = await kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: DEVICES, plural: 'edgedevices', name }) as { status?: { lwm2m?: Lwm2mRegistration } };
    return d.status?.lwm2m === undefined ? undefined : d.status.lwm2m;
  }, { timeoutMs: 30_000 });
  t.is(device.endpointName, 'leshan-client');
  t.is(device.address, `${mock?.status?.podIP ?? ''}:${lwm2m.port}`, 'deviceShifu saw the client\'s own pod address: no masquerade between pods');
  t.true(device.objects.includes('/3303/0'), `the client's objects: ${device.objects.join(',')}`);
  const observed = await httpGet(ip, 80, '/observed_temperature');
  t.is(observed.status, 200, `Observe through the CNI: ${observed.body}`);
  t.regex(observed.body.trim(), /^\d+(\.\d+)?$/);
});

const NONROOT = 65532;
const SERIAL_IN_POD = '/dev/ttyRTU0';

/** A standalone deviceShifu pod of the image for a Modbus RTU device on the host's pty (its EdgeDevice and ConfigMap as files). */
function rtuDeviceShifu(ptyPath: string): object[] {
  const edgeDevice = { apiVersion: `${GROUP}/${VERSION}`, kind: 'EdgeDevice', metadata: { name: 'rtu-plc', namespace: DEVICES },
    spec: { sku: 'modbus-plc', connection: 'Ethernet', protocol: 'Modbus', protocolSettings: { ModbusSetting: { mode: 'RTU', unitId: 3, serialPath: SERIAL_IN_POD, baudRate: 19200, parity: 'none' } } } };
  const instructions = { instructions: {
    pressure: { readWrite: 'R', protocolPropertyList: { registerType: 'input', address: '2', dataType: 'float32' } },
    setpoint: { readWrite: 'RW', protocolPropertyList: { registerType: 'holding', address: '100', dataType: 'uint16' } },
  } };
  const labels = { app: 'rtu-deviceshifu' };
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rtu-plc', namespace: DEVICES }, data: { 'edgedevice.yaml': stringify(edgeDevice), instructions: stringify(instructions) } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'rtu-deviceshifu', namespace: DEVICES, labels }, spec: {
      securityContext: { runAsNonRoot: true, runAsUser: NONROOT, runAsGroup: NONROOT, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'deviceshifu', image: IMAGE, args: ['deviceshifu', '--edgedevice-file', '/etc/edgedevice/device/edgedevice.yaml', '--bind-address', '0.0.0.0', '--port', '8080'],
        ports: [{ name: 'http', containerPort: 8080 }], readinessProbe: { httpGet: { path: '/health', port: 'http' }, periodSeconds: 2 },
        resources: { limits: { memory: '96Mi' } },
        volumeMounts: [
          { name: 'config', mountPath: '/etc/edgedevice/config' },
          { name: 'config', mountPath: '/etc/edgedevice/device' },
          { name: 'serial', mountPath: SERIAL_IN_POD },
        ],
        securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } } }],
      volumes: [
        { name: 'config', configMap: { name: 'rtu-plc' } },
        // a pseudo-terminal's slave (char major 136) is in the runtime's default device allow-list
        { name: 'serial', hostPath: { path: ptyPath, type: 'CharDevice' } },
      ] } },
  ];
}

test.serial('Modbus RTU in the image: a non-root deviceShifu pod reads and writes the mock over a pty pair from the host', async (t) => {
  const pty = await ptyPair(t, NONROOT);
  const device = await rtuDevice(t, pty.device, 3);
  // the kubelet mounts the device node itself (/dev/pts/N), not socat's symlink to it
  await applyObjects(kube, rtuDeviceShifu(await realpath(pty.gateway)));
  const [pod] = await readyPods(kube, DEVICES, 'app=rtu-deviceshifu');
  t.is(pod?.spec?.nodeName, node.nodeName);
  const ip = pod?.status?.podIP ?? '';
  const read = await httpGet(ip, 8080, '/pressure').catch((err: unknown) => ({ status: 0, body: String(err) }));
  if (read.status !== 200) t.log(await diagnosis(kube, { namespace: DEVICES, pod: 'rtu-deviceshifu' }));
  t.is(read.status, 200, read.body);
  t.is(JSON.parse(read.body), 1013.25, 'the mock\'s input registers 2-3 as a float32, over RTU');
  t.is((await httpPost(ip, 8080, '/setpoint', '4242')).status, 200);
  t.is(device.memory.holding[100], 4242, 'the write reached the device\'s holding register');
  const back = await httpGet(ip, 8080, '/setpoint');
  t.is(JSON.parse(back.body), 4242);
});
