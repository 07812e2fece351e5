// USB matching against a recorded systeminformation.usb() output (fixtures/usb-gateway.json: a
// gateway with two FTDI adapters, a CP2102, a CH340 without serial and a webcam), and the USB
// identity an EdgeDevice declares in spec.customMetadata.
import test from 'ava';
import { readFile } from 'node:fs/promises';
import { matchUsb, usbIdentityOf, usbIdentityOfSpec, type UsbIdentity, type UsbMatch, type UsbSeen } from '../../shifud/usb-match.ts';
import { API_VERSION, EDGE_DEVICE, GROUP, VERSION } from '../../shared/crds/resources.ts';
import { installCrds } from '../support/crds.ts';
import { freshNamespace, sharedKube, uniqueName } from '../support/cluster.ts';
import { createDevice, fastConfig, readDevice, startShifud, waitReachable } from './harness.ts';

const bus = JSON.parse(await readFile(new URL('fixtures/usb-gateway.json', import.meta.url), 'utf8')) as UsbSeen[];

const MATCHES: ReadonlyArray<{ what: string; identity: UsbIdentity; state: UsbMatch['state']; serial?: string; says?: RegExp }> = [
  { what: 'vendor, product and serial', identity: { vendorId: '0403', productId: '6001', serial: 'AB0L9QXR' }, state: 'present', serial: 'AB0L9QXR' },
  { what: 'vendor and product only: the first of that model', identity: { vendorId: '0403', productId: '6001' }, state: 'present', serial: 'A10KZP4E' },
  { what: 'a model without serials', identity: { vendorId: '1a86', productId: '7523' }, state: 'present' },
  { what: 'a model not plugged in', identity: { vendorId: '2341', productId: '0043' }, state: 'absent' },
  { what: 'the model with another serial', identity: { vendorId: '0403', productId: '6001', serial: 'ZZZ' }, state: 'mismatch', says: /a 0403:6001 .* is plugged in with serial A10KZP4E, AB0L9QXR, not ZZZ: check usbSerial/ },
  { what: 'the serial on another model', identity: { vendorId: '0403', productId: '6015', serial: '9E3C1B50' }, state: 'mismatch', says: /USB serial 9E3C1B50 is on 046d:0825 \(Logitech, Inc. Webcam C270\), not on 0403:6015/ },
  { what: 'a serial expected on a model that has none', identity: { vendorId: '1a86', productId: '7523', serial: 'X1' }, state: 'mismatch', says: /serial \(none\), not X1/ },
  { what: 'an absent model and an unknown serial', identity: { vendorId: '2341', productId: '0043', serial: 'X1' }, state: 'absent' },
];

for (const c of MATCHES) {
  test(`USB matching by ${c.what} is ${c.state}`, (t) => {
    const match = matchUsb(c.identity, bus);
    t.is(match.state, c.state);
    if (match.state === 'present' && c.serial !== undefined) t.is(match.seen.serialNumber, c.serial);
    if (match.state === 'mismatch' && c.says !== undefined) t.regex(match.message, c.says);
  });
}

test('an empty bus has nothing present', (t) => {
  t.is(matchUsb({ vendorId: '0403', productId: '6001' }, []).state, 'absent');
});

const IDENTITIES: ReadonlyArray<{ metadata: Record<string, string> | undefined; parsed: unknown }> = [
  { metadata: undefined, parsed: undefined },
  { metadata: { floor: '2' }, parsed: undefined },
  { metadata: { usbVendorId: '0x0403', usbProductId: '6001' }, parsed: { ok: true, value: { vendorId: '0403', productId: '6001' } } },
  { metadata: { usbVendorId: 'EA60', usbProductId: '10C4', usbSerial: ' 0001 ' }, parsed: { ok: true, value: { vendorId: 'ea60', productId: '10c4', serial: '0001' } } },
  { metadata: { usbVendorId: '403', usbProductId: '6001' }, parsed: { ok: true, value: { vendorId: '0403', productId: '6001' } } },
  { metadata: { usbVendorId: '0403' }, parsed: { ok: false, message: 'spec.customMetadata needs both usbVendorId and usbProductId (hex, e.g. "0403" and "6001")' } },
  { metadata: { usbVendorId: '0403', usbProductId: '60011' }, parsed: { ok: false, message: 'spec.customMetadata.usbProductId must be 1-4 hex digits, e.g. "0403"' } },
];

test('the USB identity is read from customMetadata, and a malformed one says what to fix', (t) => {
  for (const { metadata, parsed } of IDENTITIES) t.deepEqual(usbIdentityOf(metadata), parsed, JSON.stringify(metadata));
});

test('spec.usb is the identity when set, ahead of customMetadata, and mismatches name its fields', (t) => {
  const shifuStyle = { usbVendorId: '0403', usbProductId: '6001', usbSerial: 'A10KZP4E' };
  t.deepEqual(usbIdentityOfSpec({ customMetadata: shifuStyle }), { ok: true, value: { vendorId: '0403', productId: '6001', serial: 'A10KZP4E' } }, 'a Shifu manifest keeps working');
  const typed = usbIdentityOfSpec({ usb: { vendorId: '0x10C4', productId: 'EA60', serial: '0001' }, customMetadata: shifuStyle });
  t.deepEqual(typed, { ok: true, value: { vendorId: '10c4', productId: 'ea60', serial: '0001', typed: true } });
  t.is(usbIdentityOfSpec({ customMetadata: { floor: '2' } }), undefined);
  const wrongSerial = matchUsb({ vendorId: '0403', productId: '6001', serial: 'ZZZ', typed: true }, bus);
  t.regex(wrongSerial.state === 'mismatch' ? wrongSerial.message : '', /not ZZZ: check spec\.usb\.serial$/);
  const wrongModel = matchUsb({ vendorId: '0403', productId: '6015', serial: '9E3C1B50', typed: true }, bus);
  t.regex(wrongModel.state === 'mismatch' ? wrongModel.message : '', /check spec\.usb\.vendorId\/productId$/);
});

test('the API server refuses a malformed spec.usb and names the field', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const cases: Array<[unknown, RegExp]> = [
    [{ vendorId: 'FTDI', productId: '6001' }, /spec\.usb\.vendorId/],
    [{ vendorId: '0403' }, /spec\.usb\.productId: Required value/],
    [{ vendorId: '0403', productId: '6001', serial: '' }, /spec\.usb\.serial/],
  ];
  for (const [usb, says] of cases) {
    const body = { apiVersion: API_VERSION, kind: EDGE_DEVICE.kind, metadata: { name: 'bad-usb' }, spec: { protocol: 'USB', usb } };
    const error = await t.throwsAsync(kube.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: EDGE_DEVICE.plural, namespace, body }));
    const { body: status } = error as { body?: unknown };
    t.regex(typeof status === 'string' ? status : error.message, says, JSON.stringify(usb));
  }
});

test('shifud reports a USB device on its bus as Reachable over a USB link, and a wrong serial as a mismatch', async (t) => {
  const kube = await sharedKube();
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'shifud');
  const node = uniqueName('shifud-usb');
  let plugged = bus;
  await createDevice(kube, namespace, 'scale', { protocol: 'USB', address: '/dev/ttyUSB1', attachedNode: node, customMetadata: { usbVendorId: '0403', usbProductId: '6001', usbSerial: 'AB0L9QXR' } });
  await createDevice(kube, namespace, 'printer', { protocol: 'USB', address: '/dev/usb/lp0', attachedNode: node, customMetadata: { usbVendorId: '0403', usbProductId: '6001', usbSerial: 'NOPE' } });
  await createDevice(kube, namespace, 'elsewhere', { protocol: 'USB', address: '/dev/ttyUSB0', attachedNode: 'another-node', customMetadata: { usbVendorId: '10c4', usbProductId: 'ea60' } });
  // the typed identity: no attachedNode, so every node looks on its own bus
  await createDevice(kube, namespace, 'bridge', { protocol: 'USB', address: '/dev/ttyUSB2', usb: { vendorId: '10c4', productId: 'ea60', serial: '0001' } });
  await startShifud(t, kube, fastConfig(node, { deviceNamespace: namespace }), { usbScan: () => Promise.resolve(plugged) });

  const scale = await waitReachable(kube, namespace, 'scale', { status: 'True', reason: 'Present' });
  t.regex(scale.message, /USB 0403:6001 serial AB0L9QXR is plugged in/);
  t.like((await readDevice(kube, namespace, 'scale')).status?.links?.[0], { node, type: 'USB' });
  const printer = await waitReachable(kube, namespace, 'printer', { status: 'False', reason: 'IdentityMismatch' });
  t.regex(printer.message, /not NOPE: check usbSerial/);
  const bridge = await waitReachable(kube, namespace, 'bridge', { status: 'True', reason: 'Present' });
  t.regex(bridge.message, /USB 10c4:ea60 serial 0001 is plugged in/);

  plugged = bus.filter((d) => d.id !== '0403:6001');
  const unplugged = await waitReachable(kube, namespace, 'scale', { status: 'False', reason: 'NotPresent' });
  t.regex(unplugged.message, /is not on the USB bus/);
  t.is((await readDevice(kube, namespace, 'scale')).status?.links, undefined, 'no link while unplugged');
  t.is((await readDevice(kube, namespace, 'elsewhere')).status, undefined, 'a device attached to another node is not this node\'s business');
});
