// The development runner's pure core: what it starts for a Pod (test/support/localstack/pod-process.ts).
import test from 'ava';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { planLocalProcess } from '../support/localstack/pod-process.ts';

const HOST = { nodeName: 'edge-local', podIP: '127.0.0.1' };

/** A Pod as the controller's deviceShifu Deployment makes it (controller/bundle/deployment.ts). */
function pod(container: Partial<V1Container> = {}, extra: Partial<NonNullable<V1Pod['metadata']>> = {}): V1Pod {
  return {
    metadata: { name: 'edgedevice-thermometer-deployment-abc', namespace: 'deviceshifu', uid: 'u1', ...extra },
    spec: {
      nodeName: 'edge-local',
      containers: [{
        name: 'deviceshifu', image: 'ghcr.io/edgeshifu/edgeshifu:0.1.0', args: ['deviceshifu'],
        env: [
          { name: 'EDGEDEVICE_NAME', value: 'edgedevice-thermometer' },
          { name: 'EDGEDEVICE_NAMESPACE', value: 'devices' },
          { name: 'EDGESHIFU_BIND_ADDRESS', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'MQTT_PASSWORD', valueFrom: { secretKeyRef: { name: 'broker', key: 'password' } } },
        ],
        volumeMounts: [{ name: 'edgedevice-config', mountPath: '/etc/edgedevice/config', readOnly: true }],
        ...container,
      }],
      volumes: [{ name: 'edgedevice-config', configMap: { name: 'thermometer-configmap-0.0.1' } }],
    },
  };
}

test('a deviceShifu Pod becomes tsx deviceshifu/main.ts with its env, the pod IP as loopback, and its ConfigMap', (t) => {
  const plan = planLocalProcess(pod(), HOST);
  t.deepEqual(plan, {
    pod: 'edgedevice-thermometer-deployment-abc', uid: 'u1', entrypoint: 'deviceshifu/main.ts', args: [],
    env: { EDGEDEVICE_NAME: 'edgedevice-thermometer', EDGEDEVICE_NAMESPACE: 'devices', EDGESHIFU_BIND_ADDRESS: '127.0.0.1' },
    secretEnv: [{ env: 'MQTT_PASSWORD', secret: 'broker', key: 'password' }],
    configMaps: [{ mountPath: '/etc/edgedevice/config', configMap: 'thermometer-configmap-0.0.1' }],
  });
});

test('a Pod being deleted gets no process', (t) => {
  t.is(planLocalProcess(pod({}, { deletionTimestamp: new Date() }), HOST), undefined);
});

const REFUSED: ReadonlyArray<{ what: string; container: Partial<V1Container>; message: RegExp }> = [
  { what: 'an entrypoint argument that is no component', container: { args: ['bash'] }, message: /"bash" is not one of controller, deviceshifu, shifud, mockdevice/ },
  { what: 'no entrypoint argument at all', container: { args: [] }, message: /"" is not one of/ },
  {
    what: 'a fieldRef the runner cannot resolve',
    container: { env: [{ name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } }] },
    message: /does not resolve fieldRef status\.hostIP/,
  },
];

for (const c of REFUSED) {
  test(`a Pod with ${c.what} is refused with an error that names it`, (t) => {
    const err = t.throws(() => planLocalProcess(pod(c.container), HOST));
    t.true(isEdgeshifuError(err, 'invalid'));
    t.regex(err.message, c.message);
  });
}

test('a Pod without a container is refused by name', (t) => {
  const empty = pod();
  if (empty.spec) empty.spec.containers = [];
  t.throws(() => planLocalProcess(empty, HOST), { message: /pod edgedevice-thermometer-deployment-abc has no container/ });
});
