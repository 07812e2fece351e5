// The USB bus as systeminformation.usb() reports it (lsusb -v on Linux), scanned at most once per
// period and only when some EdgeDevice asks for USB; concurrent readers share one scan.
import si from 'systeminformation';
import type { UsbSeen } from './usbMatch.ts';

export type UsbScan = () => Promise<readonly UsbSeen[]>;

export const systemUsbScan: UsbScan = async () => si.usb();

export class UsbBus {
  private readonly scan: UsbScan;
  private readonly periodMs: number;
  private readonly now: () => number;
  private last: { at: number; devices: readonly UsbSeen[] } | undefined;
  private pending: Promise<readonly UsbSeen[]> | undefined;

  constructor(scan: UsbScan, periodMs: number, now: () => number = Date.now) {
    this.scan = scan;
    this.periodMs = periodMs;
    this.now = now;
  }

  /** The devices on the bus, from a scan no older than the period. A failed scan reads as an empty bus. */
  async devices(): Promise<readonly UsbSeen[]> {
    if (this.last !== undefined && this.now() - this.last.at < this.periodMs) return this.last.devices;
    this.pending ??= this.scan().catch(() => []).then((devices) => {
      this.last = { at: this.now(), devices };
      this.pending = undefined;
      return devices;
    });
    return this.pending;
  }
}
