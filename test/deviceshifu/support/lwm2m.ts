// LwM2M test fixtures: a deviceShifu whose LwM2M server listens on a free UDP port, the mock
// client registering with it, and Shifu-style instructions for the mock's objects.
import type { ExecutionContext } from 'ava';
import { stringify } from 'yaml';
import { startLwm2mDevice, type Lwm2mDeviceOptions, type RunningLwm2mDevice } from '../../../deviceshifu/mockdevice/lwm2m-device.ts';
import { freePort } from '../../support/controlplane/ports.ts';
import { startGateway, type TestGateway } from './device-shifu.ts';

export const ENDPOINT = 'leshan-client';

/** Instruction → protocolPropertyList, as Shifu's LwM2M ConfigMaps write them. */
export const LWM2M_INSTRUCTIONS: Readonly<Record<string, Record<string, string>>> = {
  temperature: { ObjectId: '/3303/0/5700' },
  observed_temperature: { ObjectId: '/3303/0/5700', EnableObserve: 'true' },
  min_temperature: { ObjectId: '/3303/0/5601' },
  max_temperature: { ObjectId: '/3303/0/5602' },
  units: { ObjectId: '/3303/0/5701' },
  reset: { ObjectId: '/3303/0/5605' },
  min_range: { ObjectId: '/3303/0/5603' },
  light: { ObjectId: '/3311/0/5850' },
  dimmer: { ObjectId: '/3311/0/5851' },
  colour: { ObjectId: '/3311/0/5706' },
  manufacturer: { ObjectId: '/3/0/0' },
  missing: { ObjectId: '/3303/0/5800', DataType: 'Float' },
  bad_path: { ObjectId: '/3303/0' },
  bad_segment: { ObjectId: '/3303/x/5700' },
  bad_type: { ObjectId: '/3303/0/5700', DataType: 'Decimal' },
};

export function lwm2mInstructions(extra: Readonly<Record<string, Record<string, string>>> = {}, telemetries = ''): Record<string, string> {
  const all = { ...LWM2M_INSTRUCTIONS, ...extra };
  return {
    instructions: stringify({ instructions: Object.fromEntries(Object.entries(all).map(([name, props]) => [name, { protocolPropertyList: props }])) }),
    ...(telemetries === '' ? {} : { telemetries }),
  };
}

export interface Lwm2mGateway extends TestGateway {
  readonly lwm2mPort: number;
}

export async function lwm2mGateway(t: ExecutionContext, data: Record<string, string> = lwm2mInstructions(), endpointName = ENDPOINT, lifeTimeSec?: number): Promise<Lwm2mGateway> {
  const lwm2mPort = await freePort();
  const gateway = await startGateway(t, {
    data, argv: ['--lwm2m-listen-port', String(lwm2mPort)],
    spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName, securityMode: 'None', ...(lifeTimeSec === undefined ? {} : { lifeTimeSec }) } } },
  });
  return { ...gateway, lwm2mPort };
}

export async function lwm2mClient(t: ExecutionContext, serverPort: number, options: Partial<Lwm2mDeviceOptions> = {}): Promise<RunningLwm2mDevice> {
  const device = await startLwm2mDevice({ host: '127.0.0.1', port: 0, server: { host: '127.0.0.1', port: serverPort }, endpointName: ENDPOINT, tickMs: 0, ...options });
  t.teardown(() => device.close());
  return device;
}

export async function call(gateway: TestGateway, name: string, init: RequestInit = {}): Promise<{ status: number; body: string }> {
  const response = await gateway.get(`/${name}`, init);
  return { status: response.status, body: await response.text() };
}

export function errorOf(reply: { body: string }): string {
  return (JSON.parse(reply.body) as { error: { message: string } }).error.message;
}
