// A stress test of the host's assignment changes: many changes in quick succession, devices
// swapping ports among themselves, starts overtaken by stops. Whatever the order, the host ends
// serving exactly the last assignment: each device on its port, every other port closed.
import test from 'ava';
import fc from 'fast-check';
import { createLogger } from '../../shared/log.ts';
import { parseConfig } from '../../deviceshifu/config/parse.ts';
import type { Assignment } from '../../deviceshifu/host/assignment.ts';
import { NodeHost } from '../../deviceshifu/host/host.ts';
import { freePorts } from '../support/controlplane/ports.ts';
import { waitFor } from '../support/wait.ts';
import { mockDevice } from './support/mocks.ts';

const DEVICES = ['a', 'b', 'c', 'd'];

test('after any burst of assignment changes the host serves exactly the last one', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const ports = await freePorts(6);
  const host = new NodeHost({
    bindAddress: '127.0.0.1', bodyLimitBytes: 1 << 20, readyWindowMs: 30_000, probeIntervalMs: 60_000, statusIntervalMs: 0,
    driver: { controlMsgsTimeoutMs: 60_000 }, logger: createLogger('test', { level: 'silent' }), retryMs: 10,
    feedFor: (a) => ({
      sources: { secrets: () => Promise.resolve({}), services: () => Promise.resolve(undefined) },
      follow: async (gateway) => {
        await gateway.update({ config: parseConfig({ instructions: 'instructions:\n  read_value:\n    readWrite: R\n' }), device: { name: a.name, namespace: 'devices', spec: { protocol: 'HTTP', address: thermometer.address } } });
      },
    }),
  });
  t.teardown(() => host.stop());
  // an assignment: a subset of the devices, each on a distinct port
  const assignment = fc.uniqueArray(fc.tuple(fc.constantFrom(...DEVICES), fc.constantFrom(...ports)), { selector: ([d]) => d, maxLength: DEVICES.length })
    .filter((list) => new Set(list.map(([, p]) => p)).size === list.length)
    .map((list) => list.map(([name, port]): Assignment => ({ name, namespace: 'devices', port, configMap: 'cm' })));
  await fc.assert(fc.asyncProperty(fc.array(assignment, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(3), { maxLength: 8 }), async (burst, pauses) => {
    for (const [i, list] of burst.entries()) {
      host.assign(list);
      // some changes land at once, some after a start got under way
      if ((pauses[i] ?? 0) > 1) await new Promise((resolve) => setImmediate(resolve));
    }
    const last = burst.at(-1) ?? [];
    await host.settled();
    await waitFor('every assigned device hosted', () => (host.list().every((d) => d.gateway !== undefined) ? true : undefined), { timeoutMs: 10_000 });
    t.deepEqual(host.list().map((d) => `${d.assignment.name}:${String(d.assignment.port)}`).sort(), last.map((a) => `${a.name}:${String(a.port)}`).sort());
    // a port the previous burst's device let go of is taken once it is free (the host retries a
    // listen that found it busy): the ports converge, so they are checked until a deadline
    const portsRight = async (): Promise<true | undefined> => {
      for (const port of ports) {
        const holder = last.find((a) => a.port === port);
        const reply = await fetch(`http://127.0.0.1:${String(port)}/read_value`).then(async (r) => { await r.arrayBuffer(); return r.status; }, () => 'closed');
        if (reply !== (holder === undefined ? 'closed' : 200)) return undefined;
      }
      return true;
    };
    return waitFor('each port answered by its assigned device alone', portsRight, { timeoutMs: 10_000 }).then(() => true, () => false);
  }), { numRuns: 25 });
  t.pass();
});
