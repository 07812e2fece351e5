// The node's figures read from /proc and /sys instead of systeminformation: the parsers on recorded
// text, the sampler and the USB scan on a recorded tree (fixtures/sysfs-gateway.json: the gateway
// of usb-gateway.json as sysfs lists it), matching to the same verdicts as lsusb's view.
import test from 'ava';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cpuTemperature, loadPercent, parseCpuTimes, parseMeminfo, usbSeenFromSysfs } from '../../shifud/procfs.ts';
import { SystemSampler } from '../../shifud/sampler.ts';
import { sysfsUsbScan } from '../../shifud/usb-bus.ts';
import { matchUsb, type UsbSeen } from '../../shifud/usb-match.ts';

const recorded = JSON.parse(await readFile(new URL('fixtures/sysfs-gateway.json', import.meta.url), 'utf8')) as { files: Record<string, string> };
const lsusb = JSON.parse(await readFile(new URL('fixtures/usb-gateway.json', import.meta.url), 'utf8')) as UsbSeen[];
const file = (path: string): string => recorded.files[path] ?? '';

/** The recorded tree written out under a fresh directory, removed when the test ends. */
async function recordedRoot(t: { teardown: (f: () => Promise<void>) => void }, files: Record<string, string> = recorded.files): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'shifud-sysfs-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

test('/proc/stat gives busy and total jiffies over all CPUs, and the CPU count', (t) => {
  // user nice system idle iowait irq softirq steal: busy = 4705+356+584+0+23+0, total adds idle and iowait
  t.deepEqual(parseCpuTimes(file('proc/stat')), { busy: 5668, total: 5668 + 3699176 + 23, cores: 4 });
  t.is(parseCpuTimes('intr 1 2 3\n'), undefined, 'no cpu line');
  t.is(parseCpuTimes('cpu  a b c d\n'), undefined, 'not numbers');
});

test('load is busy over total between two readings, and since boot for the first', (t) => {
  const first = { busy: 1000, total: 4000, cores: 2 };
  t.is(loadPercent(undefined, first), 25);
  t.is(loadPercent(first, { busy: 1300, total: 4400, cores: 2 }), 75);
  t.is(loadPercent(first, first), 0, 'no time passed: no load, not NaN');
});

test('/proc/meminfo gives total and available bytes; without MemAvailable, free + buffers + cached', (t) => {
  t.deepEqual(parseMeminfo(file('proc/meminfo')), { totalBytes: 8245328 * 1024, availableBytes: 7312456 * 1024 });
  t.deepEqual(parseMeminfo('MemTotal: 100 kB\nMemFree: 10 kB\nBuffers: 5 kB\nCached: 20 kB\n'), { totalBytes: 102400, availableBytes: 35 * 1024 });
  t.is(parseMeminfo('SwapTotal: 0 kB\n'), undefined);
});

const TEMPERATURES: ReadonlyArray<{ what: string; hwmon: Array<[string, number]>; zones: Array<[string, number]>; celsius: number | undefined }> = [
  { what: 'AMD: Tctl over Tccd1', hwmon: [['Tccd1', 48_250], ['Tctl', 55_125]], zones: [], celsius: 55.1 },
  { what: 'Intel: the package over its cores', hwmon: [['Core 0', 40_000], ['Package id 0', 47_000], ['Core 1', 44_000]], zones: [['x86_pkg_temp', 47_000]], celsius: 47 },
  { what: 'cores only: their mean, whole degrees', hwmon: [['Core 0', 40_000], ['Core 1', 45_000]], zones: [], celsius: 43 },
  { what: 'a Raspberry Pi: the cpu thermal zone', hwmon: [], zones: [['cpu-thermal', 51_350]], celsius: 51.4 },
  { what: 'an unnamed zone: zone 0', hwmon: [['fan1', 1]], zones: [['acpitz', 27_800], ['pch_cannonlake', 39_000]], celsius: 27.8 },
  { what: 'nothing reported', hwmon: [], zones: [], celsius: undefined },
];

for (const c of TEMPERATURES) {
  test(`the CPU temperature is chosen as systeminformation does: ${c.what}`, (t) => {
    const readings = (pairs: Array<[string, number]>): Array<{ label: string; milliC: number }> => pairs.map(([label, milliC]) => ({ label, milliC }));
    t.is(cpuTemperature(readings(c.hwmon), readings(c.zones)), c.celsius);
  });
}

test('the sampler reads a recorded node: cores, load between samples, memory, temperature', async (t) => {
  const root = await recordedRoot(t);
  let now = 1000;
  const sampler = new SystemSampler(root, () => now, root);
  const first = await sampler.sample();
  t.like(first, { takenAt: 1000, cpu: { cores: 4 }, memory: { totalBytes: 8245328 * 1024, availableBytes: 7312456 * 1024 }, temperatureC: 51.4 });
  t.true(first.cpu.loadPercent > 0.15 && first.cpu.loadPercent < 0.16, `since boot: ${first.cpu.loadPercent}`);
  t.true(first.disk.totalBytes > 0 && first.disk.availableBytes <= first.disk.totalBytes);
  // 10 s later: 300 busy and 100 idle jiffies more
  await writeFile(join(root, 'proc/stat'), file('proc/stat').replace('cpu  4705 356 584 3699176', 'cpu  5005 356 584 3699276'));
  now = 11_000;
  const second = await sampler.sample();
  t.is(second.cpu.loadPercent, 75);
  t.is(second.takenAt, 11_000);
});

test('without temperature files the sample has no temperature', async (t) => {
  const files = Object.fromEntries(Object.entries(recorded.files).filter(([path]) => !path.startsWith('sys/class/')));
  const root = await recordedRoot(t, files);
  const sample = await new SystemSampler(root, Date.now, root).sample();
  t.false('temperatureC' in sample);
});

test('sysfs lists the devices (not their interfaces) in lsusb\'s shape', async (t) => {
  const root = await recordedRoot(t);
  const bus = await sysfsUsbScan(root)();
  // in sysfs order: 1-1 (hub), 1-1.1 ... 1-1.4, 1-2, then the root hubs usb1, usb2
  t.deepEqual(bus.map((d) => d.id), ['2109:3431', '0403:6001', '0403:6001', '10c4:ea60', '1a86:7523', '046d:0825', '1d6b:0002', '1d6b:0003']);
  t.deepEqual(bus[1], { id: '0403:6001', name: 'FT232R USB UART', vendor: 'FTDI', serialNumber: 'A10KZP4E' });
  t.deepEqual(bus[4], { id: '1a86:7523', name: 'USB Serial', vendor: null, serialNumber: '' }, 'no serial file: no serial');
  t.is(usbSeenFromSysfs({ product: 'an interface' }), undefined);
  t.deepEqual(await sysfsUsbScan(join(root, 'nowhere'))(), [], 'no USB: an empty bus');
});

test('matching on the sysfs view gives the verdicts of the lsusb view', async (t) => {
  const root = await recordedRoot(t);
  const sysfs = await sysfsUsbScan(root)();
  const identities = [
    { vendorId: '0403', productId: '6001', serial: 'AB0L9QXR' }, { vendorId: '0403', productId: '6001' }, { vendorId: '1a86', productId: '7523' },
    { vendorId: '2341', productId: '0043' }, { vendorId: '0403', productId: '6001', serial: 'ZZZ' }, { vendorId: '0403', productId: '6015', serial: '9E3C1B50' },
    { vendorId: '1a86', productId: '7523', serial: 'X1' },
  ];
  for (const identity of identities) {
    const [a, b] = [matchUsb(identity, sysfs), matchUsb(identity, lsusb)];
    t.is(a.state, b.state, JSON.stringify(identity));
    if (a.state === 'present' && b.state === 'present') t.is(a.seen.serialNumber, b.seen.serialNumber);
  }
});
