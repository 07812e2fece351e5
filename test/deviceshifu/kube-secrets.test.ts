import test from 'ava';
import { KubeConfig } from '@kubernetes/client-node';
import { environmentCredentials, kubeSecrets } from '../../deviceshifu/kube/secrets.ts';

test('credentials the kubelet delivered in the environment are used without reading the API', async (t) => {
  t.is(environmentCredentials({}), undefined);
  t.deepEqual(environmentCredentials({ MQTT_USERNAME: 'plant', MQTT_PASSWORD: 's3cret' }), { username: 'plant', password: 's3cret' });
  t.deepEqual(environmentCredentials({ MQTT_PASSWORD: 'only' }), { password: 'only' });
  // a KubeConfig pointing nowhere: reaching the API would fail
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }], users: [{ name: 'u' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
  const read = kubeSecrets(kc, 'deviceshifu', { MQTT_USERNAME: 'plant', MQTT_PASSWORD: 's3cret' });
  t.deepEqual(await read('broker-credentials'), { username: 'plant', password: 's3cret' });
  await t.throwsAsync(kubeSecrets(kc, 'deviceshifu', {})('broker-credentials'), { message: /read Secret deviceshifu\/broker-credentials: API server unreachable/ });
});
