// OPC UA test helpers: the mock server on 127.0.0.1 (stopped when the test ends) and a
// deviceShifu in front of it with Shifu-style instructions.
import type { ExecutionContext } from 'ava';
import { startOpcuaMock, type OpcuaMockOptions, type RunningOpcuaMock } from '../../../deviceshifu/mockdevice/opcua-device.ts';
import type { EdgeDeviceSpec } from '../../../shared/crds/edgedevice.ts';
import { waitFor } from '../../support/wait.ts';
import { startGateway, type TestGateway } from './device-shifu.ts';

export async function opcuaMock(t: ExecutionContext, options: Partial<OpcuaMockOptions> = {}): Promise<RunningOpcuaMock> {
  const mock = await startOpcuaMock({ host: '127.0.0.1', port: 0, ...options });
  let closed = false;
  t.teardown(async () => { if (!closed) await mock.close(); });
  return { ...mock, close: async () => { closed = true; await mock.close(); } };
}

/** Shifu's OPC UA instructions: name → node id. */
export const NODES: Readonly<Record<string, string>> = {
  counter: 'ns=2;i=2', temperature: 'ns=2;i=3', running: 'ns=2;i=4', label: 'ns=2;i=5', setpoint: 'ns=2;i=6',
  speed: 'ns=2;i=7', level: 'ns=2;i=8', total: 'ns=2;i=9', serial: 'ns=2;i=10',
  slow: 'ns=2;i=20', faulty: 'ns=2;i=21', flood: 'ns=2;i=22', missing: 'ns=2;i=999',
  server_time: 'i=2258', product_name: 'i=2261',
};

export function instructionsYaml(nodes: Readonly<Record<string, string>> = NODES): string {
  return ['instructions:', ...Object.entries(nodes).flatMap(([name, id]) => [`  ${name}:`, '    readWrite: RW', '    protocolPropertyList:', `      OPCUANodeID: "${id}"`])].join('\n');
}

export interface OpcuaGatewayInput {
  readonly endpoint: string;
  readonly setting?: NonNullable<EdgeDeviceSpec['protocolSettings']>['OPCUASetting'];
  readonly nodes?: Readonly<Record<string, string>>;
  readonly telemetries?: string;
  readonly argv?: readonly string[];
}

export async function opcuaGateway(t: ExecutionContext, input: OpcuaGatewayInput): Promise<TestGateway> {
  return startGateway(t, {
    data: { instructions: instructionsYaml(input.nodes), ...(input.telemetries === undefined ? {} : { telemetries: input.telemetries }) },
    spec: { protocol: 'OPCUA', address: input.endpoint, ...(input.setting === undefined ? {} : { protocolSettings: { OPCUASetting: input.setting } }) },
    argv: input.argv ?? [],
  });
}

/** The first 2xx answer of GET `path`, once the session is up. */
export async function readWhenUp(gateway: TestGateway, path: string, init?: RequestInit): Promise<Response> {
  return waitFor(`GET ${path} to answer 200`, async () => {
    const r = await gateway.get(path, init);
    if (r.status === 200) return r;
    await r.arrayBuffer();
    return undefined;
  }, { timeoutMs: 20_000 });
}

export interface ErrorReply { error: { kind: string; message: string; instruction?: string } }
