// Which port of its node's host a shared device is served on. A device keeps the port its Service
// records while it stays on the node; a device new to a node takes the lowest port free there. A
// port handed out is held here until the Service recording it is cached, so two devices placed
// on one node at once (reconciles run in parallel) never get the same port.
import { HOST_FIRST_DEVICE_PORT, HOST_LAST_DEVICE_PORT } from '../../shared/node-host.ts';
import type { ServiceRecord } from '../records.ts';

export interface ServiceCache {
  get(name: string, namespace?: string): ServiceRecord | undefined;
  forEach(visit: (record: ServiceRecord, key: string) => void): void;
}

export class HostPorts {
  /** node → device key → port handed out and not yet seen on a Service. */
  private readonly held = new Map<string, Map<string, number>>();

  /** The port of `device` (its key) on `node`; undefined when the node's range is full. */
  portFor(who: { readonly device: string; readonly service: string; readonly namespace: string }, node: string, services: ServiceCache): number | undefined {
    const { device } = who;
    const record = services.get(who.service, who.namespace);
    const own = record?.shared;
    const held = this.held.get(node);
    if (own?.node === node && record?.device === device) {
      held?.delete(device);
      return own.port;
    }
    const mine = held?.get(device);
    if (mine !== undefined) return mine;
    const taken = new Set<number>(held?.values());
    services.forEach((record) => { if (record.shared?.node === node && record.device !== device) taken.add(record.shared.port); });
    for (let port = HOST_FIRST_DEVICE_PORT; port <= HOST_LAST_DEVICE_PORT; port += 1) {
      if (taken.has(port)) continue;
      this.hold(node, device, port);
      return port;
    }
    return undefined;
  }

  /** The device left its node or is gone: what was held for it is free. */
  release(device: string): void {
    for (const [node, held] of this.held) {
      held.delete(device);
      if (held.size === 0) this.held.delete(node);
    }
  }

  private hold(node: string, device: string, port: number): void {
    this.release(device);
    let held = this.held.get(node);
    if (held === undefined) {
      held = new Map();
      this.held.set(node, held);
    }
    held.set(device, port);
  }
}
