// A GET on an MQTT instruction while the broker is down: 502 naming the broker and how old the last
// message is (it may be stale, and nothing can tell), never 200 with the cached message.
import test from 'ava';
import { connect } from 'mqtt';
import { waitFor } from '../support/wait.ts';
import { aedesBroker } from './support/brokers.ts';
import { startGateway } from './support/device-shifu.ts';

const INSTRUCTIONS = 'instructions:\n  get_topicmsg1:\n    readWrite: R\n    protocolPropertyList:\n      MQTTTopic: "/test/test1"\n';

test('GET while the broker is down is a 502 naming the broker and the last message\'s time, and 200 again once it is back', async (t) => {
  const broker = await aedesBroker(t);
  const gateway = await startGateway(t, { name: 'edgedevice-mqtt', data: { instructions: INSTRUCTIONS }, spec: { protocol: 'MQTT', address: `127.0.0.1:${broker.port}` } });
  const device = connect(broker.url, { reconnectPeriod: 200 });
  device.on('error', () => undefined);
  t.teardown(() => device.endAsync(true));
  const fresh = await waitFor('the first message', async () => {
    if (device.connected) await device.publishAsync('/test/test1', 'temperature 21', { qos: 1 });
    const r = await gateway.get('/get_topicmsg1');
    return r.status === 200 ? await r.json() as { mqtt_receive_timestamp: string } : undefined;
  }, { timeoutMs: 15_000 });
  await broker.stop();
  const down = await waitFor('a 502 once the broker is gone', async () => {
    const r = await gateway.get('/get_topicmsg1');
    t.true(r.status === 200 || r.status === 502, `status ${String(r.status)}`);
    return r.status === 502 ? await r.json() as { error: { kind: string; message: string } } : undefined;
  }, { timeoutMs: 15_000 });
  t.is(down.error.kind, 'unavailable');
  t.regex(down.error.message, new RegExp(`^device edgedevice-mqtt: MQTT broker 127\\.0\\.0\\.1:${String(broker.port)} not connected; the last message on /test/test1 came at ${fresh.mqtt_receive_timestamp.replace(/[.]/g, '\\.')}`));
  await broker.start();
  const back = await waitFor('200 once the broker is back and the device publishes', async () => {
    if (device.connected) await device.publishAsync('/test/test1', 'temperature 22', { qos: 1 });
    const r = await gateway.get('/get_topicmsg1');
    const reply = r.status === 200 ? await r.json() as { mqtt_message: string } : undefined;
    return reply?.mqtt_message === 'temperature 22' ? reply : undefined;
  }, { timeoutMs: 30_000 });
  t.is(back.mqtt_message, 'temperature 22');
});
