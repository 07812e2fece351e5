// Probes are bounded in count, rate and time: many devices that accept and hang never see more
// connections at once than the concurrency allows, each probe ends at its deadline, and probes
// start no faster than the rate.
import test from 'ava';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { MockDevice, createDevice, fastConfig, startShifud, waitReachable } from './harness.ts';

test('twelve hanging devices are probed at most three at a time, each until its deadline', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const hanging = await new MockDevice().up();
  t.teardown(() => hanging.down());
  const names = Array.from({ length: 12 }, (_, i) => `sensor-${i}`);
  for (const name of names) await createDevice(kube, namespace, name, { protocol: 'HTTP', address: hanging.address, customMetadata: { healthPath: '/health' } });
  const startedAt = Date.now();
  const shifud = await startShifud(t, kube, fastConfig(uniqueName('shifud-bounds'), {
    deviceNamespace: namespace, probeConcurrency: 3, probeTimeoutMs: 400, probeRatePerSecond: 10, probeIntervalSeconds: 1,
  }));

  for (const name of names) {
    const condition = await waitReachable(kube, namespace, name, { status: 'False', reason: 'NoAnswer' });
    t.regex(condition.message, /did not answer within 400 ms/);
  }
  const elapsedS = (Date.now() - startedAt) / 1000;
  t.true(shifud.discoverer.stats.maxInFlight <= 3, 'never more than three probes in flight');
  // the device learns of a probe's hang-up a poll later than shifud starts the next one: three
  // probes ending at the same deadline may overlap their three successors there, never more
  t.true(hanging.stats.maxOpen <= 6, `the device saw ${hanging.stats.maxOpen} connections at once (12 without the bound)`);
  // the bucket starts with a burst of `concurrency` tokens, then refills at the rate
  t.true(shifud.discoverer.stats.probes <= 3 + 10 * elapsedS, `${shifud.discoverer.stats.probes} probes in ${elapsedS} s`);
});
