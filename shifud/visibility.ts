// Which EdgeDevices this node looks for, over which link, and whether this node speaks for the
// device's Reachable condition. Pure.
import type { EdgeDevice } from '../shared/crds/edgedevice.ts';
import type { LinkType } from './device-status.ts';
import { usbIdentityOfSpec } from './usb-match.ts';
import { rtuSerialPath } from '../shared/crds/modbus-setting.ts';

/**
 * The link over which this node would see the device, or undefined when it cannot:
 * attached to this node → its connection (USB by default for USB devices);
 * attached elsewhere → not ours; on the network (Ethernet or no connection) → Ethernet;
 * USB identity but no attachedNode → every node looks on its own bus; a Modbus RTU device → every
 * node looks for its serial port.
 */
export function linkTypeFor(device: EdgeDevice, nodeName: string): LinkType | undefined {
  const { attachedNode, connection, protocol } = device.spec;
  const usbDeclared = usbIdentityOfSpec(device.spec) !== undefined;
  if (attachedNode !== undefined && attachedNode !== '') {
    if (attachedNode !== nodeName) return undefined;
    return connection ?? (protocol === 'USB' || usbDeclared ? 'USB' : 'Ethernet');
  }
  if (usbDeclared || connection === 'USB') return 'USB';
  // a serial port is on one node, unknown which: every node looks in its own /dev
  if (rtuSerialPath(device.spec) !== undefined) return 'Serial';
  if (connection === undefined || connection === 'Ethernet') return 'Ethernet';
  return undefined;
}

/**
 * The node that writes the Reachable condition: the one the device is attached to, else the one
 * its deviceShifu runs on; an unplaced network device has no single owner, so every node that
 * sees it writes on its own transitions (the last one wins; its message names the node).
 */
export function speaksFor(device: EdgeDevice, nodeName: string): boolean {
  const owner = device.spec.attachedNode || device.status?.nodeName;
  return owner === undefined || owner === '' || owner === nodeName;
}
