// planDevice (pure): what one EdgeDevice's bundle and status should be, from plain inputs.
import test from 'ava';
import type { V1Deployment } from '@kubernetes/client-node';
import { afterApply, planDevice, type PlanInput, type PlanSettings } from '../../controller/reconcile/plan.ts';
import { ANNOTATION_PLACED_AT, ANNOTATION_PLACEMENT_REASON } from '../../controller/bundle/names.ts';
import type { CandidateNode } from '../../controller/scheduling/candidates.ts';
import { mentionsMqttTopic, type EdgeDevice } from '../../controller/world.ts';
import { deploymentRecord, podRecord, StringPool, type DeploymentRecord } from '../../controller/records.ts';

const pool = new StringPool();

const Gi = 2 ** 30;
const NOW = Date.parse('2026-11-22T12:00:00Z');
const settings: PlanSettings = {
  namespace: 'deviceshifu', imageFor: () => 'img', cpuRequest: '10m', memoryRequest: '32Mi', cpuLimit: '200m', memoryLimit: '64Mi',
  serviceType: 'ClusterIP', policy: { cooldownMs: 600_000, betterMemoryRatio: 2, betterDistanceKm: 1 },
};
const device = (name = 'thermometer', spec: Partial<EdgeDevice['spec']> = {}): EdgeDevice =>
  ({ metadata: { name, namespace: 'devices', generation: 1 }, spec: { protocol: 'HTTP', address: 'x:1', configMapName: 'cm', ...spec } }) as EdgeDevice;
const node = (name: string, freeMemory: number, extra: Partial<CandidateNode> = {}): CandidateNode => ({ name, freeMemory, freeCpuMillis: 4000, ...extra });
const input = (extra: Partial<PlanInput> = {}): PlanInput => ({ device: device(), now: NOW, settings, nodes: [node('edge-1', 8 * Gi)], configMapExists: true, pods: [], ...extra });

/** The Deployment an earlier reconcile applied, as the cache holds it. */
function applied(node: string, reason: string, extra: Partial<V1Deployment> = {}): DeploymentRecord {
  return deploymentRecord({
    metadata: { name: 'thermometer-deployment', generation: 1, annotations: { [ANNOTATION_PLACED_AT]: '2026-11-22T10:00:00.000Z', [ANNOTATION_PLACEMENT_REASON]: reason } },
    spec: { selector: {}, template: { spec: { containers: [], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } } } } },
    status: { observedGeneration: 1, availableReplicas: 1 },
    ...extra,
  }, pool);
}

const annotations = (plan: ReturnType<typeof planDevice>): Record<string, string> | undefined =>
  plan.bundle.find((o) => o.kind === 'Deployment')?.metadata?.annotations;

const BLOCKED: ReadonlyArray<{ case: string; input: PlanInput; reason: string; phase: string }> = [
  { case: 'a name no Service can carry', input: input({ device: device('Thermo.v2') }), reason: 'InvalidName', phase: 'Failed' },
  { case: 'no configMapName', input: input({ device: device('thermometer', { configMapName: undefined }) }), reason: 'ConfigMapNotSet', phase: 'Pending' },
  { case: 'a ConfigMap that does not exist', input: input({ configMapExists: false }), reason: 'ConfigMapNotFound', phase: 'Pending' },
  { case: 'an MQTT topic nowhere (no MQTTSetting.MQTTTopic, none in the ConfigMap\'s instructions)', input: input({ device: device('thermometer', { protocol: 'MQTT' }), configMapHasMqttTopic: false }), reason: 'MQTTTopicMissing', phase: 'Pending' },
  { case: 'a Service name taken by another device', input: input({ serviceOwner: { name: 'thermometer', namespace: 'plant-2' } }), reason: 'NameConflict', phase: 'Pending' },
  { case: 'no node with room', input: input({ nodes: [node('edge-1', 1024)] }), reason: 'NoNodeAvailable', phase: 'Pending' },
  { case: 'an attached node tainted against deviceShifu', input: input({ device: device('thermometer', { attachedNode: 'edge-1' }), nodes: [node('edge-1', 8 * Gi, { taint: 'dedicated=plc:NoSchedule' })] }), reason: 'AttachedNodeTainted', phase: 'Pending' },
];

test('an MQTT device with its topic in MQTTSetting or in the ConfigMap is not blocked for it; the message names both places', (t) => {
  const mqtt = (spec: Partial<EdgeDevice['spec']>): EdgeDevice => device('thermometer', { protocol: 'MQTT', ...spec });
  t.not(planDevice(input({ device: mqtt({ protocolSettings: { MQTTSetting: { MQTTTopic: '/t' } } }), configMapHasMqttTopic: false })).view.scheduled.reason, 'MQTTTopicMissing');
  t.not(planDevice(input({ device: mqtt({}), configMapHasMqttTopic: true })).view.scheduled.reason, 'MQTTTopicMissing');
  const missing = planDevice(input({ device: mqtt({}), configMapHasMqttTopic: false })).view.bundleReady;
  t.regex(missing.message, /spec\.protocolSettings\.MQTTSetting\.MQTTTopic.*protocolPropertyList\.MQTTTopic.*deviceshifu\/cm/);
});

for (const c of BLOCKED) {
  test(`a device with ${c.case} gets no bundle and says ${c.reason}`, (t) => {
    const plan = planDevice(c.input);
    t.deepEqual(plan.bundle, []);
    t.like(plan.view, { scheduled: { status: 'False', reason: c.reason }, bundleReady: { status: 'False', reason: c.reason }, phase: c.phase });
  });
}

test('a placed device gets its five objects, pinned to the chosen node, Pending until the Deployment is available', (t) => {
  const plan = planDevice(input());
  t.deepEqual(plan.bundle.map((o) => o.kind), ['ServiceAccount', 'Role', 'RoleBinding', 'Deployment', 'Service']);
  t.like(plan.view, { nodeName: 'edge-1', phase: 'Pending', scheduled: { status: 'True', reason: 'NodeChosen' }, bundleReady: { reason: 'Creating' } });
  t.deepEqual(annotations(plan), { [ANNOTATION_PLACED_AT]: '2026-11-22T12:00:00.000Z', [ANNOTATION_PLACEMENT_REASON]: 'most free memory (8Gi)' });
  t.is(plan.url, 'http://thermometer.deviceshifu.svc');
});

test('an unmoved Deployment keeps when and why it was placed, though the free memory has changed since', (t) => {
  const plan = planDevice(input({ deployment: applied('edge-1', 'most free memory (8Gi)'), nodes: [node('edge-1', 5 * Gi)] }));
  t.deepEqual(annotations(plan), { [ANNOTATION_PLACED_AT]: '2026-11-22T10:00:00.000Z', [ANNOTATION_PLACEMENT_REASON]: 'most free memory (8Gi)' });
  t.like(plan.view, { bundleReady: { status: 'True', reason: 'Available' }, phase: undefined });
});

test('a moved Deployment is stamped anew and is not ready until the new pod is', (t) => {
  const plan = planDevice(input({ deployment: applied('edge-0', 'most free memory (8Gi)'), nodes: [node('edge-0', 1 * Gi, { unavailable: 'cordoned' }), node('edge-1', 5 * Gi)] }));
  t.like(plan.decision, { kind: 'placed', node: 'edge-1', moved: true });
  t.deepEqual(annotations(plan), { [ANNOTATION_PLACED_AT]: '2026-11-22T12:00:00.000Z', [ANNOTATION_PLACEMENT_REASON]: 'most free memory (5Gi); edge-0 cordoned' });
  t.like(plan.view, { scheduled: { reason: 'Rescheduled' }, bundleReady: { status: 'False', reason: 'Creating' }, phase: 'Pending' });
});

test("a pod the scheduler refuses shows in BundleReady with the scheduler's words", (t) => {
  const pod = podRecord({ metadata: { name: 'thermometer-deployment-1', namespace: 'deviceshifu' }, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available: 1 Too many pods.' }] } }, 'deviceshifu', pool);
  const plan = planDevice(input({ deployment: applied('edge-1', 'most free memory (8Gi)', { status: { observedGeneration: 1, availableReplicas: 0 } }), pods: [pod] }));
  t.like(plan.view.bundleReady, { status: 'False', reason: 'Unschedulable', message: 'node edge-1 cannot take the deviceShifu: 0/1 nodes are available: 1 Too many pods.' });
});

test('once its Deployment is applied, a new device says Progressing, not Creating: one status write fewer', (t) => {
  const plan = planDevice(input());
  t.is(plan.view.bundleReady.reason, 'Creating');
  const fresh = applied('edge-1', 'most free memory (8Gi)', { status: {} });
  const after = afterApply(plan, fresh, []);
  t.like(after.view, { nodeName: 'edge-1', phase: 'Pending', scheduled: { status: 'True', reason: 'NodeChosen' }, bundleReady: { status: 'False', reason: 'Progressing' } });
  t.is(after.bundle, plan.bundle);
  t.is(afterApply(plan, undefined, []), plan, 'nothing applied: the plan stands');
  const ready = planDevice(input({ deployment: applied('edge-1', 'most free memory (8Gi)') }));
  t.is(afterApply(ready, applied('edge-1', 'x', { status: {} }), []), ready, 'only a Creating plan is read again');
  const blocked = planDevice(input({ nodes: [node('edge-1', 1024)] }));
  t.is(afterApply(blocked, fresh, []), blocked);
});

test('the ConfigMap names an MQTT topic when an instruction has a non-empty MQTTTopic', (t) => {
  t.true(mentionsMqttTopic('instructions:\n  get:\n    protocolPropertyList:\n      MQTTTopic: "/test/test1"\n'));
  t.true(mentionsMqttTopic('instructions:\n  get:\n    protocolPropertyList:\n      MQTTTopic: /plain\n'));
  t.false(mentionsMqttTopic('instructions:\n  get:\n    readWrite: R\n'));
  t.false(mentionsMqttTopic('instructions:\n  get:\n    protocolPropertyList:\n      MQTTTopic: ""\n'));
  t.false(mentionsMqttTopic(undefined));
});
