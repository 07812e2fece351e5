// EdgeDevice, shifu.edgenesis.io/v1alpha1: schema-compatible with Shifu's (every field of its
// types), so Shifu's manifests apply unchanged under kubectl's strict field
// validation, plus what Shifu lacks: enums, CEL rules, status conditions and four optional
// fields for the controller design (attachedNode, location, configMapName) and for shifud (usb).
import { Type, type Static, type TOptional, type TString } from '@sinclair/typebox';
import { Lwm2mRegistration } from './lwm2m-status.ts';
import { ModbusSetting, MODBUS_SPEC_RULES } from './modbus-setting.ts';
import type { CustomObject } from './resources.ts';
import { Conditions, LinkType, Location, StringEnum, StringMap, Timestamp, celRules } from './schema.ts';

export const PROTOCOLS = ['HTTP', 'HTTPCommandline', 'LwM2M', 'Modbus', 'MQTT', 'OPCUA', 'PLC4X', 'Socket', 'TCP', 'USB'] as const;
export type Protocol = (typeof PROTOCOLS)[number];
/** Shifu has only Ethernet; a device may also hang off a node by USB, a serial line or radio. */
export const CONNECTIONS = ['Ethernet', 'USB', 'Serial', 'Wireless'] as const;
export const PHASES = ['Pending', 'Running', 'Failed', 'Unknown'] as const;
export type EdgeDevicePhase = (typeof PHASES)[number];

/** An optional string field, as nearly every Shifu field is. */
function S(description?: string): TOptional<TString> {
  return Type.Optional(Type.String(description === undefined ? {} : { description }));
}

export const MQTTSetting = Type.Object({
  MQTTTopic: S('Default topic of the device.'),
  MQTTServerAddress: S('Broker host:port; the device address is used when absent.'),
  MQTTServerSecret: S('Name of a Secret (keys username, password) holding the broker credentials.'),
  MQTTServerUserName: S(),
  MQTTServerPassword: S('Prefer MQTTServerSecret: a password here is readable by anyone who can read the EdgeDevice.'),
});

export const OPCUASetting = Type.Object({
  OPCUAEndpoint: S(), SecurityMode: S(), AuthenticationMode: S(), CertificateFileName: S(), PrivateKeyFileName: S(),
  ConfigmapName: S(), IssuedToken: S(), SecurityPolicy: S(), Username: S(),
  Password: S('Prefer CredentialsSecret: a password here is readable by anyone who can read the EdgeDevice.'),
  CredentialsSecret: S('Name of a Secret (key password; may also hold the CertificateFileName and PrivateKeyFileName files): edgeshifu only, Shifu has no such field.'),
  ConnectionTimeoutInMilliseconds: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
});

export const SocketSetting = Type.Object({
  encoding: Type.Optional(StringEnum(['utf-8', 'hex'], { default: 'utf-8' })),
  bufferLength: Type.Optional(Type.Integer({ format: 'int64', minimum: 1, default: 1024 })),
  networkType: Type.Optional(StringEnum(['tcp', 'udp'], { default: 'tcp' })),
});

export const TCPSetting = Type.Object({
  NetworkType: Type.Optional(StringEnum(['tcp'], { default: 'tcp' })),
  ListenPort: Type.Optional(Type.String({ default: '8081', pattern: '^([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$', description: 'Port deviceShifu listens on, 1-65535, as a string.' })),
});

export const PLC4XSetting = Type.Object({
  protocol: Type.Optional(StringEnum(['s7', 'ads', 'bacnet', 'cbus', 'eip', 'knx', 'modbus-ascii', 'modbus-rtu', 'modbus-tcp'])),
});

const CIPHER_SUITES = ['ECDHE_ECDSA_WITH_AES_128_CCM', 'ECDHE_ECDSA_WITH_AES_128_CCM_8', 'ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'ECDHE_ECDSA_WITH_AES_256_CBC_SHA', 'ECDHE_RSA_WITH_AES_256_CBC_SHA', 'PSK_WITH_AES_128_CCM', 'PSK_WITH_AES_128_CCM_8',
  'PSK_WITH_AES_256_CCM_8', 'PSK_WITH_AES_128_GCM_SHA256', 'PSK_WITH_AES_128_CBC_SHA256', 'ECDHE_PSK_WITH_AES_128_CBC_SHA256'].map((s) => `TLS_${s}`);

export const LwM2MSetting = Type.Object({
  endpointName: Type.String(),
  securityMode: Type.Optional(StringEnum(['None', 'DTLS'], { default: 'None' })),
  dtlsMode: Type.Optional(StringEnum(['PSK', 'RPK', 'X.509'])),
  cipherSuites: Type.Optional(Type.Array(StringEnum(CIPHER_SUITES))),
  pskIdentity: S(),
  pskKey: S(),
  pingIntervalSec: Type.Optional(Type.Integer({ format: 'int64', default: -1 })),
  lifeTimeSec: Type.Optional(Type.Integer({ format: 'int64', default: 247 })),
  updateIntervalSec: Type.Optional(Type.Integer({ format: 'int64', default: 60, minimum: 1 })),
  observeIntervalSec: Type.Optional(Type.Integer({ format: 'int64', default: 30 })),
});

export const NATSSetting = Type.Object({
  maxReconnectTimes: Type.Optional(Type.Integer({ default: 60 })),
  reconnect: Type.Optional(Type.Boolean({ default: true })),
  reconnectWaitSec: Type.Optional(Type.Integer({ default: 2 })),
  timeoutSec: Type.Optional(Type.Integer({ default: 2 })),
});

export const ProtocolSettings = Type.Object({
  MQTTSetting: Type.Optional(MQTTSetting),
  OPCUASetting: Type.Optional(OPCUASetting),
  SocketSetting: Type.Optional(SocketSetting),
  TCPSetting: Type.Optional(TCPSetting),
  PLC4XSetting: Type.Optional(PLC4XSetting),
  LwM2MSetting: Type.Optional(LwM2MSetting),
  ModbusSetting: Type.Optional(ModbusSetting),
});

export const GatewaySettings = Type.Object({
  protocol: S('Protocol deviceShifu uses to forward data to a gateway, e.g. LwM2M.'),
  address: S(),
  LwM2MSetting: Type.Optional(LwM2MSetting),
  NATSSetting: Type.Optional(NATSSetting),
});

const HEX_ID = '^(0[xX])?[0-9a-fA-F]{1,4}$';

/**
 * How shifud recognises a USB device on a node's bus. Optional: Shifu's manifests say
 * the same in spec.customMetadata (usbVendorId, usbProductId, usbSerial), which shifud still reads.
 */
export const UsbIdentity = Type.Object({
  vendorId: Type.String({ pattern: HEX_ID, description: 'USB vendor id, 1-4 hex digits, e.g. "0403".' }),
  productId: Type.String({ pattern: HEX_ID, description: 'USB product id, 1-4 hex digits, e.g. "6001".' }),
  serial: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Serial number of the device: tells identical models apart.' })),
}, { description: 'USB identity shifud matches on the bus of the node; overrides usbVendorId/usbProductId/usbSerial in customMetadata.' });

// Rules for mistakes the API server can catch before a deviceShifu is ever created.
const SPEC_RULES = celRules(
  {
    rule: "!(self.protocol in ['HTTP', 'HTTPCommandline', 'Socket', 'TCP', 'OPCUA', 'PLC4X']) || has(self.address)",
    message: 'spec.address is required for this protocol: deviceShifu needs host:port (or a URL) to reach the device',
    reason: 'FieldValueRequired', fieldPath: '.address',
  },
  {
    rule: "self.protocol != 'MQTT' || has(self.address) || (has(self.protocolSettings) && has(self.protocolSettings.MQTTSetting) && has(self.protocolSettings.MQTTSetting.MQTTServerAddress))",
    message: 'an MQTT device needs a broker: set spec.address or spec.protocolSettings.MQTTSetting.MQTTServerAddress',
    reason: 'FieldValueRequired', fieldPath: '.protocolSettings.MQTTSetting',
  },
  {
    rule: "self.protocol != 'LwM2M' || (has(self.protocolSettings) && has(self.protocolSettings.LwM2MSetting)) || (has(self.gatewaySettings) && has(self.gatewaySettings.LwM2MSetting))",
    message: 'an LwM2M device needs spec.protocolSettings.LwM2MSetting (at least endpointName)',
    reason: 'FieldValueRequired', fieldPath: '.protocolSettings.LwM2MSetting',
  },
  {
    // deviceShifu's LwM2M server speaks plain CoAP only: no maintained Node.js library serves DTLS with PSK (deviceshifu/drivers/lwm2m/README.md)
    rule: "!has(self.protocolSettings) || !has(self.protocolSettings.LwM2MSetting) || ((!has(self.protocolSettings.LwM2MSetting.securityMode) || self.protocolSettings.LwM2MSetting.securityMode == 'None') && !has(self.protocolSettings.LwM2MSetting.dtlsMode) && !has(self.protocolSettings.LwM2MSetting.pskIdentity) && !has(self.protocolSettings.LwM2MSetting.pskKey) && !has(self.protocolSettings.LwM2MSetting.cipherSuites))",
    message: 'LwM2M over DTLS is not supported: edgeshifu\'s LwM2M server speaks plain CoAP only (no maintained Node.js library serves DTLS with PSK); set securityMode: None and remove dtlsMode, cipherSuites, pskIdentity and pskKey',
    fieldPath: '.protocolSettings.LwM2MSetting.securityMode',
  },
  ...(['MQTT', 'OPCUA', 'Socket', 'TCP', 'PLC4X'] as const).map((p) => ({
    rule: `!has(self.protocolSettings) || !has(self.protocolSettings.${p}Setting) || self.protocol == '${p}'`,
    message: `spec.protocolSettings.${p}Setting is set but spec.protocol is not ${p}: it would be ignored`,
    fieldPath: `.protocolSettings.${p}Setting`,
  })),
  ...MODBUS_SPEC_RULES,
);

export const EdgeDeviceSpec = Type.Object({
  sku: S('Stock keeping unit: the device model.'),
  connection: Type.Optional(StringEnum(CONNECTIONS, { description: 'How the device is linked: Ethernet (cluster network), or USB, Serial, Wireless to one node.' })),
  address: S('How deviceShifu reaches the device: host:port, a URL, or a device path.'),
  protocol: StringEnum(PROTOCOLS, { description: 'South-bound protocol deviceShifu speaks to the device.' }),
  description: S('What the device is (markdown).'),
  connectionInfo: S('How applications reach the device through deviceShifu (markdown).'),
  customMetadata: Type.Optional(StringMap()),
  protocolSettings: Type.Optional(ProtocolSettings),
  gatewaySettings: Type.Optional(GatewaySettings),
  attachedNode: Type.Optional(Type.String({ maxLength: 253, description: 'EdgeNode the device is physically attached to (USB, serial, ...); its deviceShifu then runs there.' })),
  location: Type.Optional(Location),
  configMapName: Type.Optional(Type.String({ maxLength: 253, description: 'ConfigMap (namespace deviceshifu) with driverProperties, instructions, telemetries: mounted at /etc/edgedevice/config.' })),
  usb: Type.Optional(UsbIdentity),
}, SPEC_RULES);

export const DeviceLink = Type.Object({
  node: Type.String({ description: 'EdgeNode that sees the device.' }),
  type: LinkType,
  lastSeenTime: Type.Optional(Timestamp()),
});

export const EdgeDeviceStatus = Type.Object({
  edgedevicephase: Type.Optional(StringEnum(PHASES)),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64', minimum: 0 })),
  conditions: Type.Optional(Conditions),
  nodeName: Type.Optional(Type.String({ description: 'Node the deviceShifu is placed on.' })),
  links: Type.Optional(Type.Array(DeviceLink, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['node'], maxItems: 64, description: 'Nodes that see the device, as reported by shifud.' })),
  lwm2m: Type.Optional(Lwm2mRegistration),
});

export type EdgeDeviceSpec = Static<typeof EdgeDeviceSpec>;
export type EdgeDeviceStatus = Static<typeof EdgeDeviceStatus>;
export type ModbusSetting = Static<typeof ModbusSetting>;

/** The EdgeDevice object: one type for the controller, deviceShifu, shifud and the CLI. */
export type EdgeDevice = CustomObject<EdgeDeviceSpec, EdgeDeviceStatus>;
