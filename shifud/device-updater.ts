// deviceUpdater (shifud design): writes each verdict to the EdgeDevice's status — only when it
// changes, plus the slow lastSeenTime refresh (deviceStatus.ts) — and keeps the list of devices
// this node sees for EdgeNode status.devices (the edgeMap's node↔device links).
import { toKubeError } from '../shared/kube/errors.ts';
import type { Logger } from '../shared/log.ts';
import type { ApiGate } from './api-gate.ts';
import { appliedFromObject, planDeviceStatus, type Applied, type EdgeDeviceStatusApply, type LinkType } from './device-status.ts';
import type { Verdict } from './device-verifier.ts';
import { objectKey } from '../shared/kube/informer.ts';
import type { EdgeDevice } from '../shared/crds/edgedevice.ts';
import type { EdgeDeviceStatusWriter } from './kube-clients.ts';
import type { SeenDevice } from './node-status.ts';
import { speaksFor } from './visibility.ts';

export interface DeviceUpdaterOptions {
  readonly nodeName: string;
  readonly writer: EdgeDeviceStatusWriter;
  readonly gate: ApiGate;
  readonly logger: Logger;
  readonly refreshMs: number;
  readonly now?: () => number;
}

export type UpdateResult = 'written' | 'unchanged' | 'backing-off' | 'failed' | 'gone';

interface Memory extends Applied {
  readonly uid: string | undefined;
  readonly state: Verdict['state'];
}

export class DeviceUpdater {
  private readonly options: DeviceUpdaterOptions;
  private readonly now: () => number;
  private readonly applied = new Map<string, Memory>();
  private readonly seen = new Map<string, SeenDevice>();
  readonly stats = { writes: 0 };

  constructor(options: DeviceUpdaterOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** Devices verified online from this node, for EdgeNode status.devices. */
  seenDevices(): SeenDevice[] {
    return [...this.seen.values()];
  }

  forget(key: string): void {
    this.applied.delete(key);
    this.seen.delete(key);
  }

  /** This node no longer sees the device (spec moved it elsewhere): drop its link and condition. */
  async release(device: EdgeDevice): Promise<UpdateResult> {
    const result = await this.update(device, 'Ethernet', { state: 'unknown', reason: 'NotVisible', message: '' }, false);
    this.forget(objectKey(device));
    return result;
  }

  async update(device: EdgeDevice, linkType: LinkType, verdict: Verdict, visible = true): Promise<UpdateResult> {
    const { nodeName, refreshMs } = this.options;
    const key = objectKey(device);
    const { name = '', namespace = '', uid } = device.metadata;
    if (verdict.state === 'online') this.seen.set(key, { name, namespace, linkType });
    else this.seen.delete(key);
    const speaks = visible && speaksFor(device, nodeName);
    const memory = this.applied.get(key);
    const previous = memory !== undefined && memory.uid === uid ? memory : appliedFromObject(device, nodeName, speaks);
    const plan = planDeviceStatus({ device, nodeName, linkType, speaks, verdict, now: this.now(), refreshMs }, previous);
    if (plan === undefined) return 'unchanged';
    const result = await this.write(key, plan.body);
    if (result !== 'written') return result;
    if (memory?.state !== verdict.state) this.options.logger.info({ device: key, state: verdict.state, reason: verdict.reason, message: verdict.message }, 'device state');
    this.applied.set(key, { ...plan.applied, uid, state: verdict.state });
    return 'written';
  }

  private async write(key: string, body: EdgeDeviceStatusApply): Promise<UpdateResult> {
    const { gate, writer } = this.options;
    if (!gate.isOpen()) return 'backing-off';
    try {
      await writer.applyStatus(body);
    } catch (err) {
      const error = toKubeError(err, `apply EdgeDevice ${key} status`);
      if (error.kind === 'not-found') {
        this.forget(key);
        return 'gone';
      }
      gate.failed(error, `write EdgeDevice ${key} status`);
      return 'failed';
    }
    gate.succeeded();
    this.stats.writes += 1;
    return 'written';
  }
}
