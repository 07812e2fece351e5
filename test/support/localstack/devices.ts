// The devices of the local edge stack: mock devices as local processes on free loopback
// ports, registered as a user would — Shifu's EdgeDevice manifests plus `configMapName`, with the
// address pointing at the mock, and Shifu-shaped deviceShifu ConfigMaps in namespace deviceshifu.
import { connect } from 'node:net';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ManagedProcess } from '../controlplane/process.ts';
import { freePort } from '../controlplane/ports.ts';
import { shifuExample } from '../shifu/index.ts';
import { waitFor } from '../wait.ts';

export interface LocalDevice {
  /** The mock device (deviceshifu/mockdevice). */
  readonly mock: string;
  /** Shifu's example the EdgeDevice comes from. */
  readonly example: string;
  readonly edgeDevice: string;
  readonly configMap: string;
  /** deviceShifu ConfigMap keys, in Shifu's shape. */
  readonly data: Readonly<Record<string, string>>;
  /** What to try through its deviceShifu. */
  readonly tryInstruction: string;
  /** spec.address for the mock's port (default 127.0.0.1:<port>). */
  readonly address?: (port: number) => string;
  /** A protocol Shifu has no example of: the EdgeDevice spec written here instead. */
  readonly spec?: Readonly<Record<string, unknown>>;
}

const exampleData = (name: string): Record<string, string> =>
  (shifuExample(name)[0] as unknown as { data: Record<string, string> }).data;

export const LOCAL_DEVICES: readonly LocalDevice[] = [
  {
    mock: 'thermometer', example: 'thermometer', edgeDevice: 'edgedevice-thermometer', configMap: 'thermometer-configmap-0.0.1',
    data: exampleData('thermometer-configmap'), tryInstruction: 'read_value',
  },
  {
    mock: 'robot-arm', example: 'robotarm', edgeDevice: 'edgedevice-robotarm', configMap: 'robotarm-configmap-0.0.1',
    data: {
      driverProperties: 'driverSku: Franka Emika\ndriverImage: edgenesis/robot-arm:v0.0.1\n',
      instructions: 'instructions:\n  get_coordinate:\n    readWrite: R\n  get_status:\n    readWrite: R\n',
      telemetries: 'telemetries:\n  device_health:\n    properties:\n      instruction: get_status\n      initialDelayMs: 1000\n      intervalMs: 1000\n',
    },
    tryInstruction: 'get_coordinate',
  },
  {
    mock: 'mqtt', example: 'mqtt', edgeDevice: 'edgedevice-mqtt', configMap: 'mqtt-configmap-0.0.1',
    data: {
      driverProperties: 'driverSku: testMQTT\ndriverImage:\n',
      instructions: 'instructions:\n  mqtt_data:\n    readWrite: R\n    protocolPropertyList:\n      MQTTTopic: "/test/test1"\n'
        + '  command:\n    readWrite: W\n    protocolPropertyList:\n      MQTTTopic: "/test/test2"\n',
    },
    tryInstruction: 'mqtt_data',
  },
  {
    // Shifu's OPC UA demo: a counter at ns=2;i=2, the server's time and product name
    mock: 'opcua', example: 'opcua', edgeDevice: 'edgedevice-opcua', configMap: 'opcua-configmap-0.0.1',
    data: {
      driverProperties: 'driverSku: opcua-test\ndriverImage:\n',
      instructions: 'instructions:\n'
        + '  get_value:\n    protocolPropertyList:\n      OPCUANodeID: "ns=2;i=2"\n'
        + '  get_time:\n    protocolPropertyList:\n      OPCUANodeID: "i=2258"\n'
        + '  get_server:\n    protocolPropertyList:\n      OPCUANodeID: "i=2261"\n'
        + '  setpoint:\n    readWrite: RW\n    protocolPropertyList:\n      OPCUANodeID: "ns=2;i=6"\n',
      telemetries: 'telemetries:\n  counter:\n    properties:\n      instruction: get_value\n      initialDelayMs: 1000\n      intervalMs: 1000\n',
    },
    tryInstruction: 'get_value',
    address: (port) => `opc.tcp://127.0.0.1:${String(port)}`,
  },
  {
    mock: 'modbus', example: '', edgeDevice: 'edgedevice-modbus', configMap: 'modbus-configmap-0.0.1',
    spec: { sku: 'modbus-plc', connection: 'Ethernet', protocol: 'Modbus', protocolSettings: { ModbusSetting: { mode: 'TCP', unitId: 1 } } },
    data: {
      driverProperties: 'driverSku: modbus-plc\ndriverImage:\n',
      instructions: 'instructions:\n  temperature:\n    readWrite: R\n    protocolPropertyList:\n      registerType: input\n      address: "0"\n      dataType: int16\n      scale: "0.1"\n'
        + '  setpoint:\n    readWrite: RW\n    protocolPropertyList:\n      registerType: holding\n      address: "6"\n      dataType: float32\n'
        + '  label:\n    readWrite: R\n    protocolPropertyList:\n      registerType: holding\n      address: "12"\n      dataType: string\n      count: "8"\n',
      telemetries: 'telemetries:\n  temperature:\n    properties:\n      instruction: temperature\n      initialDelayMs: 1000\n      intervalMs: 5000\n',
    },
    tryInstruction: 'temperature',
  },
];

export interface RunningMock {
  readonly device: LocalDevice;
  readonly port: number;
  readonly process: ManagedProcess;
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => { resolve(false); });
  });
}

/** Starts the mock on a free 127.0.0.1 port and waits until it accepts connections. */
export async function startMock(device: LocalDevice, logDir: string): Promise<RunningMock> {
  const port = await freePort();
  const process = new ManagedProcess({
    name: `mock-${device.mock}`, logFile: join(logDir, `mock-${device.mock}.log`),
    command: 'env',
    args: [`MOCKDEVICE_PORT=${String(port)}`, 'EDGESHIFU_BIND_ADDRESS=127.0.0.1', join('node_modules', '.bin', 'tsx'), 'deviceshifu/mockdevice/main.ts', device.mock],
  });
  process.start();
  await waitFor(`mock ${device.mock} to listen on 127.0.0.1:${String(port)}`, async () => ((await accepts(port)) ? true : undefined), {
    timeoutMs: 60_000, abortIf: () => (process.running ? undefined : `it exited:\n${process.tail()}`),
  });
  return { device, port, process };
}

/** The ConfigMap and the EdgeDevice a user would apply for this mock. */
export function deviceManifests(mock: RunningMock): KubernetesObject[] {
  const { device, port } = mock;
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: device.configMap, namespace: 'deviceshifu' }, data: device.data };
  const edgeDevice = (device.spec === undefined
    ? shifuExample(device.example).find((o) => o.metadata?.name === device.edgeDevice)
    : { apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice', metadata: { name: device.edgeDevice, namespace: 'devices' }, spec: { ...device.spec } }) as unknown as KubernetesObject & { spec: Record<string, unknown> };
  edgeDevice.spec.address = device.address?.(port) ?? `127.0.0.1:${String(port)}`;
  edgeDevice.spec.configMapName = device.configMap;
  return [configMap, edgeDevice];
}
