// USB plug and unplug as directory events (a fake /dev/bus/usb in a temp directory): one trigger
// per burst, new bus directories followed, nothing watched where nothing exists; and through
// shifud on the real control plane, a plug seen by the watch is reported at once although the
// periodic scan and probe are an hour away.
import test from 'ava';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsbBus, UsbWatch } from '../../shifud/usb-bus.ts';
import type { UsbSeen } from '../../shifud/usb-match.ts';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { waitFor } from '../support/wait.ts';
import { createDevice, fastConfig, startShifud, waitReachable } from './harness.ts';

async function fakeDevBusUsb(t: { teardown: (f: () => Promise<void>) => void }): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'shifud-devbususb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, '001'));
  await writeFile(join(root, '001', '001'), '');
  return root;
}

test('a burst of device-node changes is one trigger, and a new bus directory is followed', async (t) => {
  const root = await fakeDevBusUsb(t);
  let changes = 0;
  const usbWatch = new UsbWatch({ paths: [root], settleMs: 50, onChange: () => { changes += 1; } });
  t.teardown(() => { usbWatch.stop(); });
  t.true(await usbWatch.start());
  t.deepEqual([...usbWatch.watching].sort(), [root, join(root, '001')]);
  t.is(changes, 0, 'no trigger before anything changes');

  // udev: the node appears, then its permissions change
  await writeFile(join(root, '001', '005'), '');
  await writeFile(join(root, '001', '005'), 'x');
  await waitFor('one trigger for the plug', () => (changes === 1 ? true : undefined));
  t.true(usbWatch.stats.events >= 1);

  await mkdir(join(root, '002'));
  await waitFor('the new bus to be watched', () => (usbWatch.watching.includes(join(root, '002')) ? true : undefined));
  const before = changes;
  await writeFile(join(root, '002', '003'), '');
  await waitFor('a trigger from the new bus', () => (changes > before ? true : undefined));

  await rm(join(root, '002'), { recursive: true });
  await waitFor('the removed bus to be dropped', () => (usbWatch.watching.includes(join(root, '002')) ? undefined : true));
});

test('where no USB directory exists nothing is watched, and the periodic scan stays the only way', async (t) => {
  const usbWatch = new UsbWatch({ paths: [join(tmpdir(), 'no-such-dev-bus-usb')], onChange: () => undefined });
  t.false(await usbWatch.start());
  t.deepEqual(usbWatch.watching, []);
  usbWatch.stop();
});

test('the bus keeps its scan for the period, and a change drops it', async (t) => {
  let now = 0;
  let scans = 0;
  const bus = new UsbBus(() => { scans += 1; return Promise.resolve([]); }, 1000, () => now);
  await Promise.all([bus.devices(), bus.devices()]);
  t.is(scans, 1, 'concurrent readers share one scan');
  now = 999;
  await bus.devices();
  t.is(scans, 1, 'within the period: the last scan');
  bus.invalidate();
  await bus.devices();
  t.is(scans, 2, 'after a change: a fresh scan');
});

test('shifud reports a plugged-in USB device as soon as the watch sees it, hours before its next scan', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const node = uniqueName('shifud-usbwatch');
  const root = await fakeDevBusUsb(t);
  const scale: UsbSeen = { id: '0403:6001', name: 'FT232R USB UART', vendor: 'FTDI', serialNumber: 'AB0L9QXR' };
  let plugged: UsbSeen[] = [];
  await createDevice(kube, namespace, 'scale', { protocol: 'USB', address: '/dev/ttyUSB0', attachedNode: node, customMetadata: { usbVendorId: '0403', usbProductId: '6001', usbSerial: 'AB0L9QXR' } });
  const shifud = await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace, usbWatchPaths: [root], probeIntervalSeconds: 3600, usbIntervalSeconds: 3600 }),
    { usbScan: () => Promise.resolve(plugged) });

  await waitReachable(kube, namespace, 'scale', { status: 'False', reason: 'NotPresent' });
  const probes = shifud.discoverer.stats.probes;
  plugged = [scale];
  await writeFile(join(root, '001', '007'), '');
  const present = await waitReachable(kube, namespace, 'scale', { status: 'True', reason: 'Present' });
  t.regex(present.message, /USB 0403:6001 serial AB0L9QXR is plugged in/);
  t.is(shifud.discoverer.stats.probes, probes + 1, 'one probe, started by the plug');

  plugged = [];
  await rm(join(root, '001', '007'));
  await waitReachable(kube, namespace, 'scale', { status: 'False', reason: 'NotPresent' });
  t.is(shifud.usbWatch.stats.triggers, 2);
});
