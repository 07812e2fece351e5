// The DRONE bus's counters reach the controller's own registry (the one its /metrics serves): with
// two federated clusters, each controller's scrape has edgeshifu_bus_* with the traffic it saw.
import test from 'ava';
import { sampleSum } from '../support/controller.ts';
import { waitFor } from '../support/wait.ts';
import { startFederation } from './support.ts';

test.serial('a running controller with DRONE on serves edgeshifu_bus_* on its /metrics registry', async (t) => {
  const [a, b] = await startFederation(t, [{ id: 'a', cpu: '500m', memory: '512Mi' }, { id: 'b', cpu: '4', memory: '8Gi' }]);
  if (a === undefined || b === undefined) throw new Error('no federation');
  await waitFor('a to hear b', () => ((a.controller.controller.offloader?.federation.agent.providers() ?? []).includes('b') ? true : undefined), { timeoutMs: 60_000 });
  const scrape = a.controller.registry.metrics();
  for (const name of ['edgeshifu_bus_messages_received_total', 'edgeshifu_bus_messages_published_total', 'edgeshifu_bus_messages_dropped_total', 'edgeshifu_bus_connected', 'edgeshifu_bus_reconnects_total']) {
    t.regex(scrape, new RegExp(`^# TYPE ${name} `, 'm'), `${name} is served`);
  }
  t.true(sampleSum(a.controller.registry, 'edgeshifu_bus_messages_received_total') > 0, 'a counted the adverts it received');
  t.true(sampleSum(a.controller.registry, 'edgeshifu_bus_messages_published_total') > 0, 'a counted what it published');
  t.regex(scrape, /^edgeshifu_bus_connected\{link="local",component="controller"\} 1$/m);
});
