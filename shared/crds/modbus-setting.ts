// ModbusSetting: Shifu has no Modbus, so this is written in the style of its settings (camelCase
// like LwM2MSetting, every field optional with a default) with CEL rules that refuse, at
// admission, the combinations a Modbus deviceShifu could not use.
import { Type } from '@sinclair/typebox';
import { StringEnum, celRules, type CelRule } from './schema.ts';

export const MODBUS_MODES = ['TCP', 'RTU'] as const;
export const MODBUS_ORDERS = ['BigEndian', 'LittleEndian'] as const;
export const MODBUS_PARITIES = ['none', 'even', 'odd'] as const;
/** Fields that only a serial line has: set on a TCP device they would be ignored. */
const SERIAL_FIELDS = ['serialPath', 'baudRate', 'parity', 'stopBits', 'dataBits'] as const;

export const ModbusSetting = Type.Object({
  mode: Type.Optional(StringEnum(MODBUS_MODES, { default: 'TCP', description: 'TCP: spec.address is host:port (502 when absent). RTU: a serial line at serialPath.' })),
  unitId: Type.Optional(Type.Integer({ minimum: 0, maximum: 247, default: 1, description: 'Unit (slave) id, 0-247; 0 is broadcast and gets no answer, so only writes make sense with it.' })),
  serialPath: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'RTU: the serial device on the node, an absolute path under /dev, e.g. /dev/ttyUSB0 or /dev/serial/by-id/usb-FTDI_...; the controller mounts it into the deviceShifu and runs it on the node that has it.' })),
  baudRate: Type.Optional(Type.Integer({ minimum: 300, maximum: 921600, description: 'RTU: default 9600.' })),
  parity: Type.Optional(StringEnum(MODBUS_PARITIES, { description: 'RTU: default even (the Modbus serial line default).' })),
  stopBits: Type.Optional(Type.Integer({ minimum: 1, maximum: 2, description: 'RTU: default 1.' })),
  dataBits: Type.Optional(Type.Integer({ minimum: 7, maximum: 8, description: 'RTU: default 8 (RTU framing needs 8).' })),
  byteOrder: Type.Optional(StringEnum(MODBUS_ORDERS, { default: 'BigEndian', description: 'Order of the two bytes in a register; Modbus sends the high byte first (BigEndian).' })),
  wordOrder: Type.Optional(StringEnum(MODBUS_ORDERS, { default: 'BigEndian', description: 'Order of the registers of a 32- or 64-bit value: BigEndian puts the high word at the lower address.' })),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 60000, default: 1000, description: 'Longest wait for one Modbus reply, in milliseconds (the call\'s own deadline may be shorter).' })),
}, celRules(
  {
    rule: "!has(self.mode) || self.mode != 'RTU' || has(self.serialPath)",
    message: 'Modbus RTU needs spec.protocolSettings.ModbusSetting.serialPath (the serial device, e.g. /dev/ttyUSB0)',
    reason: 'FieldValueRequired', fieldPath: '.serialPath',
  },
  {
    rule: "!has(self.serialPath) || (self.serialPath.startsWith('/dev/') && size(self.serialPath) > 5 && !self.serialPath.contains('/../') && !self.serialPath.endsWith('/..'))",
    message: 'serialPath must be an absolute path under /dev naming the serial device, e.g. /dev/ttyUSB0 or /dev/serial/by-id/<adapter>',
    fieldPath: '.serialPath',
  },
  {
    rule: `(has(self.mode) && self.mode == 'RTU') || !(${SERIAL_FIELDS.map((f) => `has(self.${f})`).join(' || ')})`,
    message: `${SERIAL_FIELDS.join(', ')} describe a serial line: they are only read with mode: RTU (set mode: RTU, or remove them)`,
    fieldPath: '.mode',
  },
  {
    rule: "!has(self.dataBits) || self.dataBits == 8 || !has(self.parity) || self.parity != 'none'",
    message: 'dataBits 7 with parity none is not a Modbus RTU frame: RTU sends 8 data bits (use dataBits: 8)',
    fieldPath: '.dataBits',
  },
));

/** Rules on the EdgeDevice spec: the address and the setting must agree with the protocol. */
export const MODBUS_SPEC_RULES: CelRule[] = [
  {
    rule: "self.protocol != 'Modbus' || has(self.address) || (has(self.protocolSettings) && has(self.protocolSettings.ModbusSetting) && has(self.protocolSettings.ModbusSetting.mode) && self.protocolSettings.ModbusSetting.mode == 'RTU')",
    message: 'a Modbus TCP device needs spec.address (host:port, port 502 when absent); a serial device needs protocolSettings.ModbusSetting.mode: RTU and serialPath',
    reason: 'FieldValueRequired', fieldPath: '.address',
  },
  {
    rule: "!has(self.protocolSettings) || !has(self.protocolSettings.ModbusSetting) || self.protocol == 'Modbus'",
    message: 'spec.protocolSettings.ModbusSetting is set but spec.protocol is not Modbus: it would be ignored',
    fieldPath: '.protocolSettings.ModbusSetting',
  },
];

/** What the CRD's serialPath rule accepts: an absolute path under /dev that does not climb out of it. */
export function isDevPath(path: string): boolean {
  return path.startsWith('/dev/') && path.length > 5 && !path.includes('/../') && !path.endsWith('/..');
}

/** The serial port of a Modbus RTU device; undefined for every other device. */
export function rtuSerialPath(spec: { readonly protocol: string; readonly protocolSettings?: { readonly ModbusSetting?: { readonly mode?: string; readonly serialPath?: string } } }): string | undefined {
  const setting = spec.protocolSettings?.ModbusSetting;
  return spec.protocol === 'Modbus' && setting?.mode === 'RTU' ? setting.serialPath : undefined;
}
