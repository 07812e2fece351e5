// A stress test of the host's assignment changes: many changes in quick succession, devices
// swapping ports among themselves, starts overtaken by stops. Whatever the order, the host ends
// serving exactly the last assignment: each device on its port, every other port closed; LwM2M
// devices each with their server on UDP at their port, and no UDP port held by a device gone.
import { createSocket } from 'node:dgram';
import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { createLogger } from '../../shared/log.ts';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import { parseConfig } from '../../deviceshifu/config/parse.ts';
import type { Assignment } from '../../deviceshifu/host/assignment.ts';
import { NodeHost } from '../../deviceshifu/host/host.ts';
import { freePorts } from '../support/controlplane/ports.ts';
import { waitFor } from '../support/wait.ts';
import { mockDevice } from './support/mocks.ts';
import { lwm2mInstructions } from './support/lwm2m.ts';

const DEVICES = ['a', 'b', 'c', 'd'];

/** A host whose every device gets the ConfigMap `data` and the spec `specOf` gives its name. */
function churnHost(t: ExecutionContext, data: Record<string, string>, specOf: (name: string) => EdgeDeviceSpec): NodeHost {
  const host = new NodeHost({
    bindAddress: '127.0.0.1', bodyLimitBytes: 1 << 20, readyWindowMs: 30_000, probeIntervalMs: 60_000, statusIntervalMs: 0,
    driver: { controlMsgsTimeoutMs: 60_000 }, logger: createLogger('test', { level: 'silent' }), retryMs: 10,
    feedFor: (a) => ({
      sources: { secrets: () => Promise.resolve({}), services: () => Promise.resolve(undefined) },
      follow: async (gateway) => { await gateway.update({ config: parseConfig(data), device: { name: a.name, namespace: 'devices', spec: specOf(a.name) } }); },
    }),
  });
  t.teardown(() => host.stop());
  return host;
}

/** An assignment: a subset of `devices`, each on a distinct one of `ports`. */
const assignmentOf = (devices: readonly string[], ports: readonly number[]): fc.Arbitrary<Assignment[]> =>
  fc.uniqueArray(fc.tuple(fc.constantFrom(...devices), fc.constantFrom(...ports)), { selector: ([d]) => d, maxLength: devices.length })
    .filter((list) => new Set(list.map(([, p]) => p)).size === list.length)
    .map((list) => list.map(([name, port]): Assignment => ({ name, namespace: 'devices', port, configMap: 'cm' })));

test('after any burst of assignment changes the host serves exactly the last one', async (t) => {
  const thermometer = await mockDevice(t, 'thermometer');
  const ports = await freePorts(6);
  const host = churnHost(t, { instructions: 'instructions:\n  read_value:\n    readWrite: R\n' }, () => ({ protocol: 'HTTP', address: thermometer.address }));
  const assignment = assignmentOf(DEVICES, ports);
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

/** What a hosted LwM2M device's /temperature says about its UDP port, or 'closed'. */
async function udpState(port: number): Promise<string> {
  try {
    const reply = await fetch(`http://127.0.0.1:${String(port)}/temperature`);
    const text = await reply.text();
    return text.includes(`listening on UDP port ${String(port)}`) ? 'listening' : `other: ${text}`;
  } catch {
    return 'closed';
  }
}

/** True when nothing holds UDP `port` on loopback. */
async function udpFree(port: number): Promise<boolean> {
  const socket = createSocket('udp4');
  return new Promise((resolve) => {
    socket.once('error', () => { socket.close(); resolve(false); });
    socket.bind(port, '127.0.0.1', () => { socket.close(() => { resolve(true); }); });
  });
}

test('after any burst of changes to LwM2M devices each assigned one listens on UDP at its port, and no other UDP port is held', async (t) => {
  const ports = await freePorts(5);
  const host = churnHost(t, lwm2mInstructions(), (name) => ({ protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: name } } }));
  const assignment = assignmentOf(DEVICES.slice(0, 3), ports);
  await fc.assert(fc.asyncProperty(fc.array(assignment, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(3), { maxLength: 6 }), async (burst, pauses) => {
    for (const [i, list] of burst.entries()) {
      host.assign(list);
      if ((pauses[i] ?? 0) > 1) await new Promise((resolve) => setImmediate(resolve));
    }
    const last = burst.at(-1) ?? [];
    await host.settled();
    const converged = async (): Promise<true | undefined> => {
      for (const port of ports) {
        const assigned = last.some((a) => a.port === port);
        if (assigned ? (await udpState(port)) !== 'listening' : !(await udpFree(port))) return undefined;
      }
      return true;
    };
    return waitFor('each LwM2M device on its UDP port, the others free', converged, { timeoutMs: 15_000 }).then(() => true, () => false);
  }), { numRuns: 15 });
  t.pass();
});
