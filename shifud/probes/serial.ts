// A Modbus RTU device's serial port on this node: present, a character device, and openable for
// read and write by a non-root deviceShifu (owner uid 65532, or group or others rw). shifud only
// stats the node's /dev (mounted read-only at --host-dev-root in its pod); it never opens the port,
// which would take the line from the deviceShifu using it, so the device itself is not asked.
import { readlink, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { errorMessage } from '../../shared/errors.ts';
import type { ProbeOutcome } from './outcome.ts';

/** deviceShifu's user in its pod (controller/bundle/deployment.ts). */
const DEVICESHIFU_UID = 65532;

export interface SerialFile {
  readonly isCharacterDevice: boolean;
  readonly isDirectory: boolean;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/** What a stat of the port says (pure). */
export function serialOutcome(path: string, file: SerialFile | undefined): ProbeOutcome {
  if (file === undefined) return { kind: 'unreachable', detail: `serial port ${path} is not on this node` };
  if (!file.isCharacterDevice) {
    return { kind: 'wrong-protocol', detail: `${path} is ${file.isDirectory ? 'a directory' : 'not a character device'}: serialPath must name the serial device, e.g. /dev/ttyUSB0` };
  }
  const rw = (bits: number): boolean => (file.mode & bits) === bits;
  const mode = (file.mode & 0o777).toString(8).padStart(4, '0');
  if (rw(0o006)) return { kind: 'answered', detail: `serial port ${path} is present (mode ${mode}, everyone may open it)` };
  if (rw(0o060)) return { kind: 'answered', detail: `serial port ${path} is present (group ${file.gid} may open it: give deviceShifu that group, --device-shifu-serial-group)` };
  if (file.uid === DEVICESHIFU_UID && rw(0o600)) return { kind: 'answered', detail: `serial port ${path} is present (owned by deviceShifu's uid ${DEVICESHIFU_UID})` };
  return { kind: 'refused', detail: `serial port ${path} is present, but mode ${mode} (owner ${file.uid}, group ${file.gid}) lets no non-root deviceShifu open it: make it group read-write (a udev rule, GROUP="dialout", MODE="0660")` };
}

const MAX_LINKS = 8;

/**
 * Where shifud reads a node path: the node's /dev is mounted at hostDevRoot, so /dev/ttyUSB0 is
 * <hostDevRoot>/ttyUSB0, and a symlink (udev's /dev/serial/by-id/...) is followed in the node's
 * terms: an absolute target would otherwise resolve in shifud's own /dev.
 */
async function pathOnNode(path: string, hostDevRoot: string): Promise<string> {
  const inRoot = (p: string): string => join(hostDevRoot, p.slice('/dev/'.length));
  let current = path;
  for (let i = 0; i < MAX_LINKS; i += 1) {
    const link = await readlink(inRoot(current)).catch(() => undefined);
    if (link === undefined) return inRoot(current);
    const next = isAbsolute(link) ? link : resolve(dirname(current), link);
    if (!next.startsWith('/dev/')) return inRoot(current);
    current = next;
  }
  return inRoot(current);
}

export async function probeSerial(path: string, hostDevRoot: string): Promise<ProbeOutcome> {
  try {
    const s = await stat(hostDevRoot === '' ? path : await pathOnNode(path, hostDevRoot));
    return serialOutcome(path, { isCharacterDevice: s.isCharacterDevice(), isDirectory: s.isDirectory(), mode: s.mode, uid: s.uid, gid: s.gid });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return serialOutcome(path, undefined);
    return { kind: 'unreachable', detail: `serial port ${path} cannot be looked at: ${errorMessage(err)}` };
  }
}
