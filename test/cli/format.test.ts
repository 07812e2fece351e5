// What `status`, `device list` and `edgemap` print, from plain data: pure, no cluster.
import test from 'ava';
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { conditionsText, deviceProblems, deviceRow, renderDevices, type EdgeDevice } from '../../cli/format/devices.ts';
import { renderEdgeMap } from '../../cli/format/edgemap.ts';
import { controllerReport, nodeRows, parseMetrics, peerRow, renderStatus, type EdgeNode, type StatusReport } from '../../cli/format/status.ts';
import { age, byteQuantity, renderTable, shortDuration } from '../../cli/format/table.ts';
import { retryDelayMs } from '../../cli/cluster.ts';
import type { EdgeMapSnapshot } from '../../edgemap/snapshot.ts';

const NOW = new Date('2026-05-01T12:00:00Z');

test('a table pads its columns, marks missing cells and keeps each row on one line', (t) => {
  t.is(renderTable(['name', 'phase', 'node'], [['thermo', 'Running', 'edge-1'], ['robot-arm', undefined, 'line\nbreak']]), [
    'NAME       PHASE    NODE',
    'thermo     Running  edge-1',
    'robot-arm  <none>   line break',
  ].join('\n'));
});

const durations: readonly [number, string][] = [[0, '0s'], [59, '59s'], [119, '119s'], [120, '2m'], [7199, '119m'], [7200, '2h'], [172_799, '47h'], [172_800, '2d'], [-5, '0s']];
for (const [seconds, text] of durations) {
  test(`shortDuration(${String(seconds)}) is ${text}`, (t) => { t.is(shortDuration(seconds), text); });
}

test('age reads RFC 3339 times and gives nothing for what it cannot read', (t) => {
  t.is(age('2026-05-01T11:59:30Z', NOW), '30s');
  t.is(age(undefined, NOW), undefined);
  t.is(age('yesterday', NOW), undefined);
});

function device(name: string, status: EdgeDevice['status'], spec: Partial<EdgeDevice['spec']> = {}): EdgeDevice {
  return {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice',
    metadata: { name, namespace: 'devices', creationTimestamp: '2026-05-01T11:55:00Z' as unknown as Date },
    spec: { protocol: 'HTTP', address: '10.0.0.5:8080', configMapName: `${name}-configmap`, ...spec }, status,
  };
}

const CONDITION = { lastTransitionTime: '2026-05-01T11:56:00Z', observedGeneration: 1 };
const RUNNING = device('thermo', { edgedevicephase: 'Running', nodeName: 'edge-1', conditions: [
  { type: 'Scheduled', status: 'True', reason: 'Placed', message: 'most free memory', ...CONDITION },
  { type: 'BundleReady', status: 'True', reason: 'Ready', message: '', ...CONDITION },
] });
const STUCK = device('arm', { edgedevicephase: 'Pending', conditions: [
  { type: 'Scheduled', status: 'False', reason: 'NoRoom', message: 'no node has 32Mi free', ...CONDITION },
] });

test('device rows carry phase, node and conditions; conditions that do not hold show their reason', (t) => {
  t.like(deviceRow(RUNNING), { namespace: 'devices', name: 'thermo', protocol: 'HTTP', node: 'edge-1', phase: 'Running', configMap: 'thermo-configmap' });
  t.is(conditionsText(deviceRow(RUNNING).conditions), 'Scheduled,BundleReady');
  t.is(conditionsText(deviceRow(STUCK).conditions), 'Scheduled=False(NoRoom)');
  t.deepEqual(deviceProblems([deviceRow(RUNNING), deviceRow(STUCK)]), ['devices/arm: Scheduled=False NoRoom: no node has 32Mi free']);
  t.is(renderDevices([deviceRow(RUNNING), deviceRow(STUCK), deviceRow(device('new', undefined))], NOW), [
    'NAMESPACE  NAME    PROTOCOL  ADDRESS        NODE    PHASE    CONDITIONS               AGE',
    'devices    arm     HTTP      10.0.0.5:8080  <none>  Pending  Scheduled=False(NoRoom)  5m',
    'devices    new     HTTP      10.0.0.5:8080  <none>  <none>   <none>                   5m',
    'devices    thermo  HTTP      10.0.0.5:8080  edge-1  Running  Scheduled,BundleReady    5m',
  ].join('\n'));
  t.regex(renderDevices([], NOW), /no EdgeDevices/);
});

test('metrics are summed over their labels', (t) => {
  const metrics = parseMetrics([
    '# HELP edgeshifu_workqueue_depth Keys waiting', '# TYPE edgeshifu_workqueue_depth gauge',
    'edgeshifu_workqueue_depth{controller="edgedevice"} 2', 'edgeshifu_workqueue_depth{controller="node"} 3',
    'edgeshifu_edgedevices 7', 'edgeshifu_leader 0', 'garbage line',
  ].join('\n'));
  t.is(metrics.get('edgeshifu_workqueue_depth'), 5);
  t.is(metrics.get('edgeshifu_edgedevices'), 7);
  t.is(metrics.get('edgeshifu_leader'), 0);
  t.is(metrics.size, 3);
});

function lease(holder: string, renewed: string): V1Lease {
  return { spec: { holderIdentity: holder, renewTime: renewed as unknown as Date, leaseDurationSeconds: 15 } };
}

test('the controller report: leading from /readyz, the Lease and whether it has expired, unreachable with the reason', (t) => {
  t.like(controllerReport({ where: 'http://c', readyz: { status: 200, body: 'leading' }, metrics: 'edgeshifu_edgedevices 3\nedgeshifu_leader 0' }, NOW),
    { reachable: true, ready: true, leading: true, edgeDevices: 3, lease: undefined });
  t.like(controllerReport({ where: 'http://c', readyz: { status: 200, body: 'caches synced; standing by for the lease' }, metrics: 'edgeshifu_leader 0', lease: lease('pod-b', '2026-05-01T11:59:55Z') }, NOW),
    { leading: false, lease: { holder: 'pod-b', renewedAgo: '5s', expired: false } });
  t.like(controllerReport({ where: 'http://c', readyz: { status: 503, body: 'filling caches' }, lease: lease('pod-a', '2026-05-01T11:58:00Z') }, NOW),
    { ready: false, leading: false, lease: { expired: true } });
  t.deepEqual(controllerReport({ where: 'http://c', error: 'ECONNREFUSED' }, NOW), { where: 'http://c', reachable: false, lease: undefined, error: 'ECONNREFUSED' });
});

function node(name: string, ready: string, unschedulable = false): V1Node {
  return { metadata: { name }, spec: { unschedulable }, status: { conditions: [{ type: 'Ready', status: ready }] } };
}

function edgeNode(name: string): EdgeNode {
  return {
    apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeNode', metadata: { name }, spec: { location: { zone: 'hall-a' } },
    status: { free: { cpu: '1500m', memory: '2Gi' }, lastHeartbeatTime: '2026-05-01T11:59:50Z' },
  };
}

test('nodes are joined with what shifud reports; an EdgeNode without its Node still shows', (t) => {
  t.deepEqual(nodeRows([node('edge-2', 'False', true), node('edge-1', 'True')], [edgeNode('edge-1'), edgeNode('gone')], NOW), [
    { name: 'edge-1', ready: 'True', schedulable: true, edgeNode: true, zone: 'hall-a', freeCpu: '1500m', freeMemory: '2Gi', heartbeat: '10s' },
    { name: 'edge-2', ready: 'False', schedulable: false, edgeNode: false },
    { name: 'gone', ready: 'NoNode', schedulable: false, edgeNode: true, zone: 'hall-a', heartbeat: '10s' },
  ]);
});

test('the status text has the controller line, each section, and the problems to look at', (t) => {
  const report: StatusReport = {
    kubernetes: { server: 'https://127.0.0.1:6443', kubeconfig: '/k', context: 'edge', reachable: true },
    controller: controllerReport({ where: 'http://127.0.0.1:8080', readyz: { status: 200, body: 'leading' }, metrics: 'edgeshifu_edgedevices 2\nedgeshifu_workqueue_depth 0' }, NOW),
    nodes: nodeRows([node('edge-1', 'True')], [edgeNode('edge-1')], NOW),
    devices: [deviceRow(RUNNING), deviceRow(STUCK)],
    federation: [peerRow({
      apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'Federation', metadata: { name: 'site-b' },
      spec: { clusterId: 'site-b', brokerUrl: 'mqtts://b:8883', credentialsSecretRef: { name: 's', namespace: 'n' } },
      status: { conditions: [{ type: 'Connected', status: 'True', reason: 'Up', message: '', ...CONDITION }] },
    })],
    problems: ['cannot list Federations: storage is (re)initializing'],
  };
  const text = renderStatus(report, NOW);
  t.true(text.startsWith('kubernetes  https://127.0.0.1:6443  reachable (kubeconfig /k, context edge)\ncontroller  http://127.0.0.1:8080  ready, leading, 2 EdgeDevices cached, work queue 0; no leader election Lease\n'), text);
  t.regex(text, /NODES\nNAME +READY +SCHEDULABLE +EDGENODE +ZONE +FREE CPU +FREE MEMORY +HEARTBEAT\nedge-1 +True +yes +yes +hall-a +1500m +2Gi +10s ago/);
  t.regex(text, /FEDERATION PEERS\nNAME +CLUSTER +BROKER +WEIGHT +CONNECTED\nsite-b +site-b +mqtts:\/\/b:8883 +1 +True/);
  t.true(text.endsWith('PROBLEMS\n- cannot list Federations: storage is (re)initializing\n- devices/arm: Scheduled=False NoRoom: no node has 32Mi free'), text);
  const quiet = renderStatus({ ...report, devices: [deviceRow(RUNNING)], federation: [], problems: [], controller: controllerReport({ where: 'http://x', error: 'connect ECONNREFUSED' }, NOW) }, NOW);
  t.false(quiet.includes('PROBLEMS'));
  t.regex(quiet, /controller {2}http:\/\/x {2}UNREACHABLE: connect ECONNREFUSED/);
  t.regex(quiet, /no federation peers/);
});

const SNAPSHOT: EdgeMapSnapshot = {
  version: 1, seq: 12,
  vertices: [
    { key: 'devices/arm', kind: 'edgeDevice', attributes: { phase: 'Pending', protocol: 'HTTP' } },
    { key: 'devices/thermo', kind: 'edgeDevice', attributes: { phase: 'Running', protocol: 'HTTP', nodeName: 'edge-1', deviceShifuUrl: 'http://thermo.deviceshifu.svc' } },
    { key: 'edge-1', kind: 'edgeNode', attributes: { phase: 'Ready', location: { zone: 'hall-a' }, free: { cpu: '2', memory: '1Gi' } } },
    { key: 'edge-2', kind: 'edgeNode', attributes: { phase: 'NotReady' } },
    { key: 'site-b', kind: 'remoteCluster', attributes: { phase: 'Peered', endpoint: 'http://b.example' } },
    { key: 'apps/shop/api', kind: 'component', attributes: { phase: 'LAUNCHED', cluster: 'site-b', endpoint: '192.0.2.2:30080' } },
    { key: 'apps/shop/db', kind: 'component', attributes: { phase: 'SCHEDULED', cluster: 'site-c' } },
  ],
  links: [
    { source: 'devices/arm', target: 'edge-2', type: 'USB' },
    { source: 'devices/thermo', target: 'edge-1', type: 'Ethernet' },
    { source: 'edge-1', target: 'edge-2', type: 'Ethernet', latencyMs: 2, bandwidthMbps: 100 },
    { source: 'edge-1', target: 'site-b', type: 'Federation' },
    { source: 'apps/shop/api', target: 'site-b', type: 'Offload' },
  ],
};

test('the edgeMap as text: nodes with their devices, devices on no node, clusters with what they run for us, the other links', (t) => {
  t.is(renderEdgeMap(SNAPSHOT), [
    'edgeMap (seq 12): 2 nodes, 2 devices, 1 remote cluster, 5 links',
    '',
    'edge-1  Ready  zone hall-a  free cpu 2, memory 1Gi',
    '  devices/thermo  Running  HTTP  http://thermo.deviceshifu.svc  (Ethernet)',
    '',
    'edge-2  NotReady',
    '  (no devices placed here)',
    '',
    'devices on no node:',
    '  devices/arm  Pending  HTTP',
    '',
    'remote clusters:',
    '  site-b  Peered  http://b.example',
    '    runs apps/shop/api  LAUNCHED  192.0.2.2:30080',
    '',
    'offloaded to a cluster not on the map:',
    '  apps/shop/db  SCHEDULED  on site-c',
    '',
    'links:',
    '  devices/arm -- edge-2  USB',
    '  edge-1 -- edge-2  Ethernet  2 ms  100 Mbps',
    '  edge-1 -- site-b  Federation',
  ].join('\n'));
  t.is(renderEdgeMap({ version: 1, seq: 0, vertices: [], links: [] }), 'edgeMap (seq 0): 0 nodes, 0 devices, 0 remote clusters, 0 links');
});

test('up prints commands that run from a checkout (npx edgeshifu …), never a bare edgeshifu that is not on the PATH', async (t) => {
  const { howTo } = await import('../../cli/commands/up.ts');
  const text = howTo({ dir: '/s', kubeconfig: '/s/admin.kubeconfig', edgeMapUrl: 'http://127.0.0.1:8080/edgemap/', controllerUrl: 'http://127.0.0.1:8080', pid: 1, devices: [{ edgeDevice: 'thermo', tryInstruction: 'read_value', url: 'http://127.0.0.1:9000' }], startedAt: '' }, '/k');
  const commands = text.slice(text.indexOf('\ntry')).split('\n').filter((l) => l.startsWith('  '));
  t.true(commands.length >= 4, text);
  for (const line of commands) t.regex(line, /^ {2}npx edgeshifu /, line);
  t.regex(text, /^ {2}npx edgeshifu call thermo read_value {4}# or: curl http:\/\/127\.0\.0\.1:9000\/read_value$/m);
});

test('free memory prints as a Kubernetes quantity everywhere, whether shifud wrote bytes or a Node wrote Ki', (t) => {
  t.is(byteQuantity('21911265280'), '20.4Gi');
  t.is(byteQuantity('16305912Ki'), '15.6Gi');
  t.is(byteQuantity('4Gi'), '4Gi');
  t.is(byteQuantity('512Mi'), '512Mi');
  t.is(byteQuantity('oops'), 'oops');
  const raw = edgeNode('edge-1');
  const bytes = { ...raw, status: { ...raw.status, free: { cpu: '1500m', memory: '21911265280' } } };
  t.like(nodeRows([node('edge-1', 'True')], [bytes], NOW)[0], { freeMemory: '20.4Gi' });
  const map: EdgeMapSnapshot = { version: 1, seq: 1, vertices: [{ key: 'edge-1', kind: 'edgeNode', attributes: { phase: 'Ready', free: { cpu: '2', memory: '21911265280' } } }], links: [] };
  t.regex(renderEdgeMap(map), /free cpu 2, memory 20\.4Gi/);
});

test('a transient API server answer (429 while its storage initializes, 503, 504) is asked again, five times at most; others are not', (t) => {
  t.deepEqual([0, 1, 2, 3, 4, 5].map((attempt) => retryDelayMs(429, attempt)), [250, 500, 1000, 2000, 2000, undefined]);
  t.is(retryDelayMs(503, 0), 250);
  t.is(retryDelayMs(504, 0), 250);
  for (const code of [undefined, 400, 401, 403, 404, 409, 500]) t.is(retryDelayMs(code, 0), undefined, String(code));
});
