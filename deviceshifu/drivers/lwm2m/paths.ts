// One instruction's protocolPropertyList → a checked LwM2M target (pure). Shifu names the resource
// as ObjectId: /3303/0/5700 (object / instance / resource) and EnableObserve: true|false; DataType
// (edgeshifu's) says how a write's body is checked when the resource is not in RESOURCE_TYPES.
import { EdgeshifuError } from '../../../shared/errors.ts';
import type { Instruction } from '../../config/types.ts';
import { RESOURCE_KINDS, kindOf, type ResourceKind } from './values.ts';

export interface Lwm2mTarget {
  /** /3303/0/5700 */
  readonly path: string;
  readonly objectId: number;
  readonly instanceId: number;
  readonly resourceId: number;
  readonly kind: ResourceKind;
  /** Shifu's observe mode: the device is observed while registered, and GET answers the latest notification. */
  readonly observe: boolean;
}

const ID_MAX = 65535; // object, instance and resource ids are 16-bit (LwM2M TS 1.0 §6.1)

function segment(text: string, what: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new Error(`${what} "${text}" is not a number 0-${ID_MAX}`);
  const value = Number(text);
  if (value > ID_MAX) throw new Error(`${what} ${value} is out of range 0-${ID_MAX}`);
  return value;
}

function flag(p: Readonly<Record<string, string>>, key: string): boolean {
  const text = (p[key] ?? '').trim().toLowerCase();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  throw new Error(`${key} "${p[key] ?? ''}" is not true or false`);
}

function parse(instruction: Instruction): Lwm2mTarget {
  const p = instruction.protocolProperties;
  const raw = (p.ObjectId ?? '').trim();
  if (raw === '') throw new Error('ObjectId is required: the resource path /object/instance/resource, e.g. /3303/0/5700');
  const parts = raw.replace(/^\//, '').split('/');
  if (parts.length !== 3) throw new Error(`ObjectId "${raw}" must name one resource as /object/instance/resource (e.g. /3303/0/5700), not ${parts.length} segment${parts.length === 1 ? '' : 's'}`);
  const objectId = segment(parts[0] ?? '', 'object id');
  const instanceId = segment(parts[1] ?? '', 'instance id');
  const resourceId = segment(parts[2] ?? '', 'resource id');
  const declared = (p.DataType ?? '').trim();
  if (declared !== '' && !(RESOURCE_KINDS as readonly string[]).includes(declared)) throw new Error(`DataType "${declared}" is not one of ${RESOURCE_KINDS.join(', ')}`);
  const kind = declared === '' ? kindOf(objectId, resourceId) ?? 'String' : declared as ResourceKind;
  const observe = flag(p, 'EnableObserve');
  if (observe && kind === 'Execute') throw new Error(`EnableObserve: an executable resource (${raw}) has no value to observe`);
  return { path: `/${objectId}/${instanceId}/${resourceId}`, objectId, instanceId, resourceId, kind, observe };
}

/** Throws EdgeshifuError(invalid) naming the instruction and what to fix. */
export function parseTarget(instruction: Instruction): Lwm2mTarget {
  try {
    return parse(instruction);
  } catch (err) {
    throw new EdgeshifuError('invalid', `instruction ${instruction.name}: protocolPropertyList: ${(err as Error).message}`);
  }
}
