// Taints and tolerations in placement: the scheduler's matching rules, the controller's
// toleration setting, and what placement decides on tainted nodes (pure).
import test from 'ava';
import { blockingTaint, describeTaint, parseTolerations, tolerates, type Taint } from '../../controller/scheduling/taints.ts';
import { candidateNode, type CandidateNode } from '../../controller/scheduling/candidates.ts';
import { place, type PlacementPolicy, type PlacementRequest } from '../../controller/scheduling/placement.ts';
import { deviceShifuDeployment } from '../../controller/bundle/deployment.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';

const Mi = 2 ** 20;
const Gi = 2 ** 30;
const policy: PlacementPolicy = { cooldownMs: 600_000, betterMemoryRatio: 2, betterDistanceKm: 1 };
const request: PlacementRequest = { cpuMillis: 10, memory: 32 * Mi };
const NOW = 1_000_000_000;
const node = (name: string, freeMemory: number, extra: Partial<CandidateNode> = {}): CandidateNode => ({ name, freeMemory, freeCpuMillis: 4000, ...extra });

test('the toleration setting reads key=value:effect, key:effect, key, and * for every taint', (t) => {
  t.deepEqual(parseTolerations(' dedicated=plc:NoSchedule, gpu:NoExecute ,maintenance,site=a,*:PreferNoSchedule'), [
    { key: 'dedicated', operator: 'Equal', value: 'plc', effect: 'NoSchedule' },
    { key: 'gpu', operator: 'Exists', effect: 'NoExecute' },
    { key: 'maintenance', operator: 'Exists' },
    { key: 'site', operator: 'Equal', value: 'a' },
    { operator: 'Exists', effect: 'PreferNoSchedule' },
  ]);
  t.deepEqual(parseTolerations(''), []);
  t.deepEqual(parseTolerations('*'), [{ operator: 'Exists' }]);
});

test('a bad toleration setting is an invalid-input error that says what to write', (t) => {
  const effect = t.throws(() => parseTolerations('dedicated=plc:Never'));
  t.true(isEdgeshifuError(effect, 'invalid'));
  t.is(effect.message, 'toleration "dedicated=plc:Never": effect must be NoSchedule, PreferNoSchedule, NoExecute');
  t.regex(t.throws(() => parseTolerations('a b')).message, /toleration "a b" is not key, key=value/);
  t.regex(t.throws(() => parseTolerations('*=x')).message, /toleration "\*=x" is not/);
});

const TAINT: Taint = { key: 'dedicated', value: 'plc', effect: 'NoSchedule' };
const MATCHES: ReadonlyArray<[string, boolean]> = [
  ['dedicated=plc:NoSchedule', true],
  ['dedicated=plc', true],
  ['dedicated', true],
  ['dedicated:NoSchedule', true],
  ['*', true],
  ['*:NoSchedule', true],
  ['dedicated=other:NoSchedule', false],
  ['dedicated=plc:NoExecute', false],
  ['other', false],
  ['*:NoExecute', false],
];

for (const [setting, expected] of MATCHES) {
  test(`toleration ${setting} ${expected ? 'tolerates' : 'does not tolerate'} dedicated=plc:NoSchedule`, (t) => {
    const [toleration] = parseTolerations(setting);
    if (toleration === undefined) return t.fail();
    t.is(tolerates(toleration, TAINT), expected);
  });
}

test('only NoSchedule and NoExecute taints block, and the not-ready/unreachable ones every pod tolerates do not', (t) => {
  t.is(blockingTaint(undefined, []), undefined);
  t.is(blockingTaint([{ key: 'soft', effect: 'PreferNoSchedule' }], []), undefined);
  t.is(blockingTaint([{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }], []), undefined);
  const taints = [{ key: 'soft', effect: 'PreferNoSchedule' }, { key: 'dedicated', value: 'plc', effect: 'NoSchedule' }, { key: 'evict', effect: 'NoExecute' }];
  t.like(blockingTaint(taints, []), { key: 'dedicated' });
  t.like(blockingTaint(taints, parseTolerations('dedicated')), { key: 'evict' });
  t.is(blockingTaint(taints, parseTolerations('dedicated,evict:NoExecute')), undefined);
  t.is(describeTaint({ key: 'dedicated', value: 'plc', effect: 'NoSchedule' }), 'dedicated=plc:NoSchedule');
  t.is(describeTaint({ key: 'evict', effect: 'NoExecute' }), 'evict:NoExecute');
});

test('a candidate node names the taint deviceShifu does not tolerate', (t) => {
  const k8sNode = { metadata: { name: 'n' }, spec: { taints: [{ key: 'dedicated', value: 'plc', effect: 'NoSchedule' }] }, status: { allocatable: { cpu: '2', memory: '4Gi' }, conditions: [{ type: 'Ready', status: 'True' }] } };
  const context = { now: NOW, staleMs: 120_000, requireEdgeNode: false };
  t.like(candidateNode(k8sNode, undefined, undefined, context), { taint: 'dedicated=plc:NoSchedule', unavailable: undefined });
  t.like(candidateNode(k8sNode, undefined, undefined, { ...context, tolerations: parseTolerations('dedicated=plc') }), { taint: undefined, unavailable: undefined });
});

test('placement skips tainted nodes, and says so when nothing else is left', (t) => {
  t.like(place(request, [node('big', 8 * Gi, { taint: 'dedicated=plc:NoSchedule' }), node('small', 1 * Gi)], policy, NOW), { kind: 'placed', node: 'small' });
  t.deepEqual(place(request, [node('big', 8 * Gi, { taint: 'dedicated=plc:NoSchedule' }), node('down', 8 * Gi, { unavailable: 'cordoned' }), node('full', 1 * Mi)], policy, NOW), {
    kind: 'pending', reason: 'NoNodeAvailable',
    message: 'no node can run the deviceShifu: 1 unavailable, 1 with a taint deviceShifu does not tolerate (--device-shifu-tolerations), 1 without 32Mi memory, 10m CPU and room for one more pod',
  });
});

test('a device on a node that gets a taint it does not tolerate moves at once, cooldown or not', (t) => {
  const decision = place({ ...request, current: { node: 'a', placedAt: NOW } }, [node('a', 8 * Gi, { taint: 'evict:NoExecute' }), node('b', 1 * Gi)], policy, NOW);
  t.like(decision, { kind: 'placed', node: 'b', moved: true });
  t.regex(decision.kind === 'placed' ? decision.reason : '', /; a has taint evict:NoExecute, not tolerated$/);
});

test('an attached device stays Pending on a node tainted against it, saying how to fix it; a lost node still wins as Unknown', (t) => {
  const attached = { ...request, attachedNode: 'plc-host' };
  t.deepEqual(place(attached, [node('plc-host', 1 * Gi, { taint: 'dedicated=plc:NoSchedule' }), node('other', 8 * Gi)], policy, NOW), {
    kind: 'pending', reason: 'AttachedNodeTainted',
    message: 'attached node plc-host has taint dedicated=plc:NoSchedule, which deviceShifu does not tolerate: remove the taint, or add a toleration to the controller (--device-shifu-tolerations)',
  });
  t.like(place(attached, [node('plc-host', 1 * Gi, { taint: 'x:NoSchedule', unavailable: 'Node not Ready' })], policy, NOW), { kind: 'unknown' });
});

test('the Deployment carries the configured tolerations, and no tolerations field without them', (t) => {
  const device = { name: 'd', namespace: 'devices', spec: { protocol: 'HTTP' as const, address: 'x:1' } };
  const settings = { namespace: 'deviceshifu', image: 'img', cpuRequest: '10m', memoryRequest: '32Mi', cpuLimit: '200m', memoryLimit: '64Mi' };
  const placement = { node: 'n', placedAt: '', reason: '' };
  t.false('tolerations' in (deviceShifuDeployment(device, 'cm', placement, settings).spec?.template.spec ?? {}));
  t.false('tolerations' in (deviceShifuDeployment(device, 'cm', placement, { ...settings, tolerations: [] }).spec?.template.spec ?? {}));
  const tolerated = deviceShifuDeployment(device, 'cm', placement, { ...settings, tolerations: parseTolerations('dedicated=plc:NoSchedule,evict') });
  t.deepEqual(tolerated.spec?.template.spec?.tolerations, [{ key: 'dedicated', operator: 'Equal', value: 'plc', effect: 'NoSchedule' }, { key: 'evict', operator: 'Exists' }]);
});
