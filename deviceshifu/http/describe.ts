// The device and its instructions as `/` and `/instructions` show them (from the EdgeDevice
// description and the instruction descriptions). Never protocolSettings: they may hold credentials.
import type { DeviceShifuConfig } from '../config/types.ts';
import { allowedMethods } from './request-rules.ts';
import type { DeviceIdentity } from './view.ts';

export interface DeviceDescription {
  readonly device: Readonly<Record<string, unknown>> | null;
  readonly driver: DeviceShifuConfig['driver'];
  readonly instructions: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly telemetries: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

export function describeDevice(device: DeviceIdentity | undefined, config: DeviceShifuConfig | undefined): DeviceDescription {
  const spec = device?.spec;
  return {
    device: device === undefined || spec === undefined ? null : {
      name: device.name,
      sku: spec.sku, protocol: spec.protocol, address: spec.address,
      description: spec.description, connectionInfo: spec.connectionInfo, customMetadata: spec.customMetadata,
    },
    driver: config?.driver ?? {},
    instructions: [...(config?.instructions.values() ?? [])].map((i) => ({
      name: i.name, path: `/${i.name}`, readWrite: i.readWrite, methods: allowedMethods(i.readWrite, spec?.protocol),
      ...(i.description === undefined ? {} : { description: i.description }),
    })),
    telemetries: (config?.telemetries ?? []).map((t) => ({ name: t.name, instruction: t.instruction, intervalMs: t.intervalMs })),
  };
}
