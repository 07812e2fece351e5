// Mock OPC UA server (node-opcua's server): variables in namespace 2, as Shifu's OPC UA demo
// addresses them (ns=2;i=2), plus the standard server nodes (i=2258 CurrentTime, i=2261
// ProductName). Security modes None, Sign and SignAndEncrypt; UserName authentication when users
// are given (then anonymous sessions are refused).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPCUACertificateManager } from 'node-opcua-certificate-manager';
import { DataType, DataValue, MessageSecurityMode, SecurityPolicy, StatusCodes, Variant, VariantArrayType } from 'node-opcua-client';
import { OPCUAServer } from 'node-opcua-server';
import type { RunningMock } from './http-device.ts';

export interface OpcuaMockOptions {
  readonly host: string;
  readonly port: number;
  /** Accepted UserName credentials; when set, anonymous sessions are refused. */
  readonly users?: Readonly<Record<string, string>>;
  /** How long the slow variable takes to answer a read (default 2000 ms). */
  readonly slowMs?: number;
  /** The flood variable changes this often (ms) with no sampling floor; 0 = it stays still. */
  readonly floodEveryMs?: number;
  /** Client certificates (DER) to trust; absent: any client certificate is accepted (a mock). */
  readonly trustedCertificates?: readonly Buffer[];
  /** User certificates (DER) accepted as X509 identities; absent: none is. */
  readonly userCertificates?: readonly Buffer[];
}

export interface RunningOpcuaMock extends RunningMock {
  /** opc.tcp://host:port */
  readonly endpoint: string;
  /** The current value of a variable by its numeric id in namespace 2. */
  value(id: number): unknown;
  /** Each activated session's channel: "<mode> <policy>", e.g. "SignAndEncrypt Basic256Sha256". */
  readonly sessions: readonly string[];
  /** Each activated session's identity token type, e.g. "X509IdentityToken". */
  readonly identities: readonly string[];
}

interface MockVariable {
  readonly id: number;
  readonly name: string;
  readonly dataType: DataType;
  readonly initial: unknown;
  readonly writable: boolean;
}

/** The register map of the mock: Shifu's demo reads ns=2;i=2. */
export const OPCUA_MOCK_VARIABLES: readonly MockVariable[] = [
  { id: 2, name: 'Counter', dataType: DataType.Int32, initial: 0, writable: false },
  { id: 3, name: 'Temperature', dataType: DataType.Double, initial: 21.5, writable: true },
  { id: 4, name: 'Running', dataType: DataType.Boolean, initial: true, writable: true },
  { id: 5, name: 'Label', dataType: DataType.String, initial: 'press-1', writable: true },
  { id: 6, name: 'Setpoint', dataType: DataType.Int32, initial: 100, writable: true },
  { id: 7, name: 'Speed', dataType: DataType.Float, initial: 1.5, writable: true },
  { id: 8, name: 'Level', dataType: DataType.UInt16, initial: 7, writable: true },
  { id: 9, name: 'Total', dataType: DataType.Int64, initial: [0, 5], writable: true },
  { id: 10, name: 'SerialNumber', dataType: DataType.String, initial: 'SN-0042', writable: false },
];
export const SLOW_ID = 20;
export const FAULTY_ID = 21;
export const FLOOD_ID = 22;

export async function startOpcuaMock(options: OpcuaMockOptions): Promise<RunningOpcuaMock> {
  const pki = await mkdtemp(join(tmpdir(), 'opcua-mock-pki-'));
  const serverCertificateManager = new OPCUACertificateManager({ rootFolder: pki, automaticallyAcceptUnknownCertificate: options.trustedCertificates === undefined });
  await serverCertificateManager.initialize();
  for (const der of options.trustedCertificates ?? []) await serverCertificateManager.trustCertificate(der);
  const userCertificateManager = new OPCUACertificateManager({ rootFolder: join(pki, 'users'), automaticallyAcceptUnknownCertificate: false });
  await userCertificateManager.initialize();
  for (const der of options.userCertificates ?? []) await userCertificateManager.trustCertificate(der);
  const users = options.users;
  const server = new OPCUAServer({
    host: options.host, hostname: options.host, port: options.port,
    serverCertificateManager, userCertificateManager,
    securityModes: [MessageSecurityMode.None, MessageSecurityMode.Sign, MessageSecurityMode.SignAndEncrypt],
    securityPolicies: [SecurityPolicy.None, SecurityPolicy.Basic256Sha256, SecurityPolicy.Aes128_Sha256_RsaOaep, SecurityPolicy.Aes256_Sha256_RsaPss],
    allowAnonymous: users === undefined,
    ...(users === undefined ? {} : { userManager: { isValidUser: (name: string, password: string) => Object.hasOwn(users, name) && users[name] === password } }),
    buildInfo: { productName: 'edgeshifu mock OPC UA device', manufacturerName: 'edgeshifu' },
    disableDiscovery: true,
  });
  await server.initialize();
  const addressSpace = server.engine.addressSpace;
  if (addressSpace === null) throw new Error('OPC UA mock: no address space');
  const ns = addressSpace.registerNamespace('urn:edgeshifu:mockdevice');
  const device = ns.addObject({ organizedBy: addressSpace.rootFolder.objects, browseName: 'MockDevice' });
  const values = new Map<number, unknown>();
  for (const v of OPCUA_MOCK_VARIABLES) {
    values.set(v.id, v.initial);
    ns.addVariable({
      componentOf: device, browseName: v.name, nodeId: `ns=${ns.index};i=${v.id}`, dataType: DataType[v.dataType],
      accessLevel: v.writable ? 'CurrentRead | CurrentWrite' : 'CurrentRead', userAccessLevel: v.writable ? 'CurrentRead | CurrentWrite' : 'CurrentRead',
      minimumSamplingInterval: 100,
      value: {
        get: () => new Variant({ dataType: v.dataType, arrayType: VariantArrayType.Scalar, value: values.get(v.id) }),
        set: (variant: Variant) => { values.set(v.id, variant.value); return StatusCodes.Good; },
      },
    });
  }
  const slowMs = options.slowMs ?? 2000;
  ns.addVariable({
    componentOf: device, browseName: 'Slow', nodeId: `ns=${ns.index};i=${SLOW_ID}`, dataType: 'Double', minimumSamplingInterval: 1000,
    value: { refreshFunc: (done: (err: Error | null, dv?: DataValue) => void) => { setTimeout(() => { done(null, new DataValue({ value: { dataType: DataType.Double, value: 3.14 }, sourceTimestamp: new Date() })); }, slowMs); } },
  });
  ns.addVariable({
    componentOf: device, browseName: 'Faulty', nodeId: `ns=${ns.index};i=${FAULTY_ID}`, dataType: 'Int32', minimumSamplingInterval: 100,
    value: { timestamped_get: () => new DataValue({ statusCode: StatusCodes.BadDeviceFailure }) },
  });
  const flood = ns.addVariable({
    componentOf: device, browseName: 'Flood', nodeId: `ns=${ns.index};i=${FLOOD_ID}`, dataType: 'Int32', minimumSamplingInterval: 0,
    value: { dataType: DataType.Int32, value: 0 },
  });
  let floodCount = 0;
  const floodTimer = options.floodEveryMs !== undefined && options.floodEveryMs > 0
    ? setInterval(() => { flood.setValueFromSource({ dataType: DataType.Int32, value: ++floodCount }); }, options.floodEveryMs)
    : undefined;
  const counterTimer = setInterval(() => { values.set(2, ((values.get(2) as number) + 1) | 0); }, 1000);
  const sessions: string[] = [];
  const identities: string[] = [];
  server.on('session_activated', (session, token) => {
    const channel = session.channel;
    if (channel !== undefined) sessions.push(`${MessageSecurityMode[channel.securityMode]} ${channel.securityPolicy.slice(channel.securityPolicy.indexOf('#') + 1)}`);
    identities.push(token.constructor.name);
  });
  await server.start();
  const port = server.endpoints[0]?.port ?? options.port;
  const endpoint = `opc.tcp://${options.host}:${port}`;
  return {
    name: 'opcua', host: options.host, port, address: endpoint, endpoint, sessions, identities,
    value: (id) => (id === FLOOD_ID ? floodCount : values.get(id)),
    async close() {
      clearInterval(counterTimer);
      clearInterval(floodTimer);
      await server.shutdown(0);
      await serverCertificateManager.dispose();
      await userCertificateManager.dispose();
      await rm(pki, { recursive: true, force: true });
    },
  };
}
