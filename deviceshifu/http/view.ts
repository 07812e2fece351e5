// What the north-bound HTTP layer needs from the gateway: read-only views that always return the
// current (hot-reloaded) configuration and device.
import type { Logger } from '../../shared/log.ts';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import type { DeviceShifuConfig, Instruction } from '../config/types.ts';
import type { CallInput } from '../device-call.ts';
import type { DriverResponse } from '../drivers/driver.ts';
import type { GatewayMetrics } from '../metrics.ts';
import type { DeviceHealth } from '../status/health.ts';

export interface DeviceIdentity {
  readonly name: string;
  readonly namespace?: string;
  readonly spec: EdgeDeviceSpec;
}

export interface GatewayView {
  readonly config: () => DeviceShifuConfig | undefined;
  readonly device: () => DeviceIdentity | undefined;
  readonly call: (instruction: Instruction, input: CallInput) => Promise<DriverResponse>;
  readonly metrics: GatewayMetrics;
  readonly health: DeviceHealth;
  /** /ready answers 200 while the device answered within this window. */
  readonly readyWindowMs: number;
  readonly bodyLimitBytes: number;
  readonly logger: Logger;
}
