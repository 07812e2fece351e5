// Reads and writes of one node on the open session. A write's body is converted to the node's
// type, read once per node (DataType and ValueRank attributes) and cached for the driver's life.
import * as lib from 'node-opcua-client';
import type { ClientSession, DataValue, NodeId } from 'node-opcua-client';
import { EdgeshifuError } from '../../shared/errors.ts';
import { isoTime } from '../../shared/time.ts';
import type { Instruction } from '../config/types.ts';
import { abortable } from './abortable.ts';
import type { DriverRequest, DriverResponse } from './driver.ts';
import { headerValue } from './headers.ts';
import type { OpcuaConnection } from './opcua-connection.ts';
import { callError, statusError } from './opcua-status.ts';
import { BUILTIN_TYPES, toJsonValue, toNodeValue, toText, typeName, writeBodyValue, type NodeType } from './opcua-values.ts';

/** The instruction's node id, parsed once; a malformed one is an error for that instruction only. */
export function parseNodeId(instruction: Instruction): NodeId {
  const text = instruction.protocolProperties.OPCUANodeID;
  if (text === undefined || text.trim() === '') throw new EdgeshifuError('invalid', `instruction ${instruction.name} has no protocolPropertyList.OPCUANodeID`);
  try {
    return lib.resolveNodeId(text.trim());
  } catch {
    throw new EdgeshifuError('invalid', `instruction ${instruction.name}: OPCUANodeID "${text}" is not an OPC UA node id; write it as ns=<index>;i=<number>, ns=<index>;s=<text>, ns=<index>;g=<guid> or ns=<index>;b=<base64>`);
  }
}

/**
 * A service call bounded by `signal`: not sent when the signal has already aborted, and a late
 * failure of a call given up on (the channel breaking under it) is nobody's to handle, so it is
 * caught here rather than left to crash the process as an unhandled rejection.
 */
export function bounded<T>(start: () => Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  const work = start();
  work.catch(() => undefined);
  return abortable(work, signal);
}

export function isBad(dv: DataValue): boolean {
  return dv.statusCode.isNotGood() && !dv.statusCode.name.startsWith('Uncertain');
}

/** Plain text by default, as Shifu answers; JSON with type and timestamps when the caller accepts it. */
export function readResponse(dv: DataValue, accept: string): DriverResponse {
  const json = toJsonValue(dv.value.value, dv.value.dataType);
  const status = dv.statusCode.name;
  const headers: Record<string, string> = status === 'Good' ? {} : { 'x-opcua-status': status };
  if (!accept.includes('application/json')) return { status: 200, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' }, body: Buffer.from(toText(json)) };
  const body = {
    value: json, dataType: BUILTIN_TYPES[dv.value.dataType] ?? String(dv.value.dataType), statusCode: status,
    ...(dv.sourceTimestamp ? { sourceTimestamp: isoTime(dv.sourceTimestamp.getTime()) } : {}),
    ...(dv.serverTimestamp ? { serverTimestamp: isoTime(dv.serverTimestamp.getTime()) } : {}),
  };
  return { status: 200, headers: { ...headers, 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) };
}

async function readType(session: ClientSession, nodeId: NodeId): Promise<NodeType> {
  const [dataType, valueRank] = await session.read([
    { nodeId, attributeId: lib.AttributeIds.DataType }, { nodeId, attributeId: lib.AttributeIds.ValueRank },
  ]);
  if (dataType === undefined || isBad(dataType)) throw statusError(dataType?.statusCode.name ?? 'BadUnexpectedError', nodeId.toString(), 'write');
  const typeId = dataType.value.value as NodeId;
  const rank = Number(valueRank?.value.value ?? -1);
  // Built-in types are ns=0;i=1..21; abstract or derived ones (Number, enumerations, UtcTime) take the current value's type.
  if (typeId.namespace === 0 && typeof typeId.value === 'number' && typeId.value >= 1 && typeId.value <= 21) return { dataType: typeId.value, isArray: rank >= 0 };
  const current = await session.read({ nodeId, attributeId: lib.AttributeIds.Value });
  if (isBad(current)) throw statusError(current.statusCode.name, nodeId.toString(), 'write');
  return { dataType: current.value.dataType, isArray: current.value.arrayType !== lib.VariantArrayType.Scalar };
}

export class NodeIo {
  private readonly types = new Map<string, Promise<NodeType>>();
  private readonly connection: OpcuaConnection;
  private readonly endpoint: string;

  constructor(connection: OpcuaConnection, endpoint: string) {
    this.connection = connection;
    this.endpoint = endpoint;
  }

  async read(nodeId: NodeId, request: DriverRequest): Promise<DriverResponse> {
    const session = this.connection.session();
    let dv: DataValue;
    try {
      dv = await bounded(() => session.read({ nodeId, attributeId: lib.AttributeIds.Value }), request.signal);
    } catch (err) {
      if (request.signal.aborted) throw err;
      throw callError(err, this.endpoint, nodeId.toString(), 'read');
    }
    if (isBad(dv)) throw statusError(dv.statusCode.name, nodeId.toString(), 'read');
    return readResponse(dv, headerValue(request.headers, 'accept') ?? '');
  }

  async write(nodeId: NodeId, request: DriverRequest): Promise<DriverResponse> {
    const value = writeBodyValue(request.body);
    const session = this.connection.session();
    try {
      const type = await bounded(() => this.typeOf(session, nodeId), request.signal);
      let converted: unknown;
      try {
        converted = toNodeValue(type, value);
      } catch (err) {
        throw new EdgeshifuError('invalid', `cannot write node ${nodeId.toString()}: ${(err as Error).message}`);
      }
      const variant = { dataType: type.dataType, arrayType: type.isArray ? lib.VariantArrayType.Array : lib.VariantArrayType.Scalar, value: converted };
      const status = await bounded(() => session.write({ nodeId, attributeId: lib.AttributeIds.Value, value: { value: variant } }), request.signal);
      if (status.isNotGood()) throw statusError(status.name, nodeId.toString(), 'write');
      return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ nodeId: nodeId.toString(), dataType: typeName(type), statusCode: status.name })) };
    } catch (err) {
      if (request.signal.aborted) throw err;
      throw callError(err, this.endpoint, nodeId.toString(), 'write');
    }
  }

  private typeOf(session: ClientSession, nodeId: NodeId): Promise<NodeType> {
    const key = nodeId.toString();
    let known = this.types.get(key);
    if (known === undefined) {
      known = readType(session, nodeId);
      this.types.set(key, known);
      // a failed look-up (session lost, node missing) is tried again next time
      known.catch(() => { this.types.delete(key); });
    }
    return known;
  }
}
