// deviceDiscoverer's look at one device: parse its target, run the probe for its protocol under a
// deadline, or read the last USB bus scan. Returns an Observation for the verifier.
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import type { Observation } from '../device-verifier.ts';
import { describeTarget, probeTargetOf } from '../target.ts';
import { matchUsb, type UsbSeen } from '../usb-match.ts';
import { probeHttp } from './http.ts';
import { probeModbus } from './modbus.ts';
import { probeMqtt } from './mqtt.ts';
import { probeTcp } from './tcp.ts';
import { probeSerial } from './serial.ts';

export interface ObserveOptions {
  /** Stops the probe when shifud stops. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** The latest USB bus scan. */
  readonly usbBus: () => Promise<readonly UsbSeen[]>;
  /** Where the node's /dev is mounted ('' when shifud runs on the host). */
  readonly hostDevRoot?: string;
}

export async function observe(spec: EdgeDeviceSpec, options: ObserveOptions): Promise<Observation> {
  const parsed = probeTargetOf(spec);
  if (!parsed.ok) return { kind: 'invalid', message: parsed.message };
  const target = parsed.value;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  switch (target.kind) {
    case 'none':
      return { kind: 'unprobed', why: target.why };
    case 'usb':
      return { kind: 'usb', match: matchUsb(target.identity, await options.usbBus()), described: describeTarget(target) };
    case 'tcp':
      return { kind: 'probe', target, outcome: await probeTcp(target.host, target.port, signal, options.timeoutMs) };
    case 'mqtt':
      return { kind: 'probe', target, outcome: await probeMqtt(target.host, target.port, signal, options.timeoutMs) };
    case 'http':
      return { kind: 'probe', target, outcome: await probeHttp(target.url, signal, options.timeoutMs) };
    case 'serial':
      return { kind: 'probe', target, outcome: await probeSerial(target.path, options.hostDevRoot ?? '') };
    case 'modbus':
      return { kind: 'probe', target, outcome: await probeModbus(target, signal, options.timeoutMs) };
  }
}
