// shifud's look at a Modbus RTU device's serial port: the target from the spec, and the verdict of
// a stat of the node's /dev (read at --host-dev-root) on real files: a character device, a missing
// path, a directory, a regular file, and the permission bits a non-root deviceShifu needs.
import test from 'ava';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeTargetOf } from '../../shifud/target.ts';
import { probeSerial, serialOutcome, type SerialFile } from '../../shifud/probes/serial.ts';
import { verify } from '../../shifud/device-verifier.ts';
import { linkTypeFor } from '../../shifud/visibility.ts';
import type { EdgeDevice, EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';

const rtu = (serialPath: string, extra: Partial<EdgeDeviceSpec> = {}): EdgeDeviceSpec => ({ protocol: 'Modbus', connection: 'Serial', protocolSettings: { ModbusSetting: { mode: 'RTU', serialPath } }, ...extra });

test('an RTU device is probed at its serial port; a path outside /dev is an invalid spec that says what to write', (t) => {
  t.deepEqual(probeTargetOf(rtu('/dev/ttyUSB0')), { ok: true, value: { kind: 'serial', path: '/dev/ttyUSB0' } });
  for (const bad of ['/tmp/ttyUSB0', '/dev/../etc/shadow']) {
    const parsed = probeTargetOf(rtu(bad));
    t.false(parsed.ok, bad);
    t.regex(parsed.ok ? '' : parsed.message, /must be a path under \/dev, e\.g\. \/dev\/ttyUSB0/);
  }
});

test('every node looks for an unattached RTU device\'s port; an attached one only on its node', (t) => {
  const device = (spec: EdgeDeviceSpec): EdgeDevice => ({ apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice', metadata: { name: 'plc', namespace: 'devices' }, spec });
  t.is(linkTypeFor(device(rtu('/dev/ttyUSB0')), 'a'), 'Serial');
  t.is(linkTypeFor(device(rtu('/dev/ttyUSB0', { attachedNode: 'b' })), 'a'), undefined);
  t.is(linkTypeFor(device(rtu('/dev/ttyUSB0', { attachedNode: 'a' })), 'a'), 'Serial');
});

const file = (mode: number, uid = 0, gid = 20): SerialFile => ({ isCharacterDevice: true, isDirectory: false, mode: 0o20000 | mode, uid, gid });

test('the permission bits decide whether a non-root deviceShifu may open the port', (t) => {
  t.like(serialOutcome('/dev/ttyUSB0', file(0o660)), { kind: 'answered', detail: 'serial port /dev/ttyUSB0 is present (group 20 may open it: give deviceShifu that group, --device-shifu-serial-group)' });
  t.like(serialOutcome('/dev/ttyUSB0', file(0o666)), { kind: 'answered' });
  t.like(serialOutcome('/dev/ttyUSB0', file(0o600, 65532)), { kind: 'answered' });
  const closed = serialOutcome('/dev/ttyS0', file(0o600));
  t.like(closed, { kind: 'refused' });
  t.regex(closed.detail, /mode 0600 \(owner 0, group 20\) lets no non-root deviceShifu open it/);
  t.like(verify({ kind: 'probe', target: { kind: 'serial', path: '/dev/ttyS0' }, outcome: closed }), { state: 'offline', reason: 'ConnectionRefused' });
});

test('on real files: /dev/null is a character device; a missing path, a directory and a regular file are not a port', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'shifud-dev-'));
  t.teardown(async () => { await rm(root, { recursive: true, force: true }); });
  await mkdir(join(root, 'serial', 'by-id'), { recursive: true });
  await writeFile(join(root, 'ttyFILE'), 'not a tty');
  // udev's links are relative; an absolute one into /dev is read in the node's /dev, not shifud's;
  // ttyREAL stands for the node's character device (the machine's own /dev/null, by a path outside /dev)
  await symlink('../../ttyNULL', join(root, 'serial', 'by-id', 'usb-adapter'));
  await symlink('/dev/ttyREAL', join(root, 'ttyNULL'));
  await symlink('/proc/../dev/null', join(root, 'ttyREAL'));
  await symlink('/dev/ttyMISSING', join(root, 'ttyDANGLING'));
  const present = await probeSerial('/dev/serial/by-id/usb-adapter', root);
  t.is(present.kind, 'answered', present.detail);
  t.regex(present.detail, /serial port \/dev\/serial\/by-id\/usb-adapter is present/);
  t.like(await probeSerial('/dev/ttyDANGLING', root), { kind: 'unreachable', detail: 'serial port /dev/ttyDANGLING is not on this node' });
  const missing = await probeSerial('/dev/ttyUSB7', root);
  t.deepEqual(missing, { kind: 'unreachable', detail: 'serial port /dev/ttyUSB7 is not on this node' });
  t.like(verify({ kind: 'probe', target: { kind: 'serial', path: '/dev/ttyUSB7' }, outcome: missing }), { state: 'offline', reason: 'Unreachable' });
  const directory = await probeSerial('/dev/serial', root);
  t.deepEqual(directory, { kind: 'wrong-protocol', detail: '/dev/serial is a directory: serialPath must name the serial device, e.g. /dev/ttyUSB0' });
  t.like(verify({ kind: 'probe', target: { kind: 'serial', path: '/dev/serial' }, outcome: directory }), { state: 'mismatch', reason: 'WrongProtocol' });
  t.like(await probeSerial('/dev/ttyFILE', root), { kind: 'wrong-protocol', detail: '/dev/ttyFILE is not a character device: serialPath must name the serial device, e.g. /dev/ttyUSB0' });
  t.like(await probeSerial('/dev/null', ''), { kind: 'answered' }, 'with no root, the path as written');
});
