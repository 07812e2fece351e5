// LwM2M resource values as plain text (LwM2M TS 1.0 §6.4.1, content format 0): what a write's body
// must look like for each resource type, checked before anything is sent (pure). Booleans travel
// as "0"/"1", Time as seconds since 1970, Opaque as raw bytes (content format 42).
import { EdgeshifuError } from '../../../shared/errors.ts';

export const RESOURCE_KINDS = ['String', 'Integer', 'Float', 'Boolean', 'Time', 'Opaque', 'Objlnk', 'Execute'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** CoAP content formats LwM2M 1.0 uses (IANA CoAP Content-Formats registry). */
export const CONTENT_FORMAT = { text: 0, linkFormat: 40, opaque: 42, tlv: 11542, json: 11543 } as const;

/**
 * Types of the IPSO reusable resources (ids 5500+ mean the same in every object, OMA LwM2M
 * registry) that the temperature (3303) and light control (3311) objects use, and of the Device
 * object's (3) resources, keyed object/resource. Anything else is a String unless DataType says.
 */
const REUSABLE: Readonly<Record<number, ResourceKind>> = {
  5518: 'Time', 5601: 'Float', 5602: 'Float', 5603: 'Float', 5604: 'Float', 5605: 'Execute',
  5700: 'Float', 5701: 'String', 5706: 'String', 5750: 'String', 5805: 'Float', 5820: 'Float',
  5850: 'Boolean', 5851: 'Integer', 5852: 'Integer',
};
const DEVICE_OBJECT: Readonly<Record<number, ResourceKind>> = {
  0: 'String', 1: 'String', 2: 'String', 3: 'String', 4: 'Execute', 5: 'Execute', 9: 'Integer', 13: 'Time', 14: 'String', 15: 'String', 16: 'String',
};

export function kindOf(objectId: number, resourceId: number): ResourceKind | undefined {
  return objectId === 3 ? DEVICE_OBJECT[resourceId] : REUSABLE[resourceId];
}

export interface EncodedValue {
  readonly payload: Buffer;
  readonly contentFormat: number;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function integer(text: string, path: string, kind: 'Integer' | 'Time'): string {
  if (!/^[+-]?\d+$/.test(text)) throw new EdgeshifuError('invalid', `${path} is ${kind === 'Time' ? 'a Time (whole seconds since 1970)' : 'an Integer'}: "${text}" is not a whole number (write e.g. 42)`);
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX) throw new EdgeshifuError('invalid', `${path} is an ${kind}: ${text} is outside the 64-bit range LwM2M allows`);
  return value.toString();
}

function float(text: string, path: string): string {
  const value = text === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(value)) throw new EdgeshifuError('invalid', `${path} is a Float: "${text}" is not a finite number (write e.g. 21.5)`);
  return String(value);
}

function boolean(text: string, path: string): string {
  const lower = text.toLowerCase();
  if (lower === 'true' || lower === '1') return '1';
  if (lower === 'false' || lower === '0') return '0';
  throw new EdgeshifuError('invalid', `${path} is a Boolean: "${text}" is not true, false, 1 or 0`);
}

function objlnk(text: string, path: string): string {
  if (!/^\d{1,5}:\d{1,5}$/.test(text)) throw new EdgeshifuError('invalid', `${path} is an Objlnk: "${text}" is not objectId:instanceId (e.g. 3303:0)`);
  return text;
}

/** The body of a write → the payload for resource `path` of type `kind`; a body that does not fit is 400 naming the type. */
export function encodeValue(kind: ResourceKind, body: Buffer, path: string): EncodedValue {
  if (kind === 'Opaque') return { payload: body, contentFormat: CONTENT_FORMAT.opaque };
  const text = body.toString('utf8').trim();
  const plain = (value: string): EncodedValue => ({ payload: Buffer.from(value, 'utf8'), contentFormat: CONTENT_FORMAT.text });
  switch (kind) {
    case 'Execute': throw new EdgeshifuError('invalid', `${path} is executable, not writable: POST it to execute`);
    case 'String': return plain(body.toString('utf8'));
    case 'Integer':
    case 'Time': return plain(integer(text, path, kind));
    case 'Float': return plain(float(text, path));
    case 'Boolean': return plain(boolean(text, path));
    case 'Objlnk': return plain(objlnk(text, path));
  }
}

/** Execute arguments (LwM2M TS 1.0 §5.4.5): digits, optionally ='text'; comma-separated. An empty body is no arguments. */
export function executeArguments(body: Buffer, path: string): Buffer {
  const text = body.toString('utf8').trim();
  if (text === '') return Buffer.alloc(0);
  if (!/^\d(='[^']*')?(,\d(='[^']*')?)*$/.test(text)) throw new EdgeshifuError('invalid', `${path}: execute arguments "${text}" must be digits, each optionally ='value', comma-separated (e.g. 0='on',1)`);
  return Buffer.from(text, 'utf8');
}
