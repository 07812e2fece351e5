import test from 'ava';
import { KubeClient } from '../../shared/kube/client.ts';
import { environmentCredentials, kubeSecrets } from '../../deviceshifu/kube/secrets.ts';

test('credentials the kubelet delivered in the environment are used without reading the API', async (t) => {
  t.is(environmentCredentials({}), undefined);
  t.deepEqual(environmentCredentials({ MQTT_USERNAME: 'plant', MQTT_PASSWORD: 's3cret' }), { username: 'plant', password: 's3cret' });
  t.deepEqual(environmentCredentials({ MQTT_PASSWORD: 'only' }), { password: 'only' });
  // a client pointing nowhere: reaching the API would fail
  const client = new KubeClient({ server: 'https://127.0.0.1:1' });
  t.teardown(() => { client.close(); });
  const read = kubeSecrets(client, 'deviceshifu', { MQTT_USERNAME: 'plant', MQTT_PASSWORD: 's3cret' });
  t.deepEqual(await read('broker-credentials'), { username: 'plant', password: 's3cret' });
  await t.throwsAsync(kubeSecrets(client, 'deviceshifu', {})('broker-credentials'), { message: /read Secret deviceshifu\/broker-credentials: API server unreachable/ });
});
