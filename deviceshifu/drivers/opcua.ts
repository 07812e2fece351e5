// OPC UA (Shifu-compatible): each instruction names a node (protocolPropertyList.OPCUANodeID).
// GET reads its Value; POST/PUT write `{"value": X}` converted to the node's DataType, which is
// read once per node and cached. Telemetry subscribes (opcua-subscriptions.ts) instead of polling.
// Loaded only by an OPC UA deviceShifu (drivers/index.ts), so no other deviceShifu loads node-opcua.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lib from 'node-opcua-client';
import type { NodeId } from 'node-opcua-client';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Instruction } from '../config/types.ts';
import type { Driver, DriverContext } from './driver.ts';
import { OpcuaConnection } from './opcua-connection.ts';
import { bounded, isBad, NodeIo, parseNodeId, readResponse } from './opcua-nodes.ts';
import { opcuaPlan } from './opcua-settings.ts';
import { callError, statusError } from './opcua-status.ts';
import { OpcuaSubscriptions } from './opcua-subscriptions.ts';

/** Shifu mounts the certificate ConfigMap here. */
export const DEFAULT_CERTIFICATE_DIR = '/etc/edgedevice/certificate';
const SERVER_STATE = 'i=2259';

function parseNodes(context: DriverContext): Map<string, NodeId | EdgeshifuError> {
  const nodes = new Map<string, NodeId | EdgeshifuError>();
  for (const instruction of context.config.instructions.values()) {
    try {
      nodes.set(instruction.name, parseNodeId(instruction));
    } catch (err) {
      nodes.set(instruction.name, err as EdgeshifuError);
      context.logger.warn({ instruction: instruction.name, err: (err as Error).message }, 'OPC UA instruction refused; the others work');
    }
  }
  return nodes;
}

export function createOpcuaDriver(context: DriverContext): Driver {
  const plan = opcuaPlan(context.spec, context.options.opcuaCertificateDir ?? DEFAULT_CERTIFICATE_DIR);
  const logger = context.logger;
  // node-opcua writes its own diagnostics to the console: into our log instead, at debug level
  const libLog = (data?: unknown, ...rest: unknown[]): void => { logger.debug({ lib: 'node-opcua' }, [data, ...rest].map(String).join(' ')); };
  lib.setWarningLogger(libLog);
  lib.setErrorLogger(libLog);
  const identity = plan.identity;
  if (identity.mode === 'UserName' && identity.credentialsSecret === undefined) logger.warn('OPCUASetting.Password is readable by anyone who can read the EdgeDevice: prefer CredentialsSecret');
  const password = async (): Promise<string> => {
    if (identity.mode !== 'UserName') return '';
    if (identity.credentialsSecret === undefined) return identity.inlinePassword ?? '';
    const secret = await context.secrets(identity.credentialsSecret);
    if (secret.password === undefined) throw new EdgeshifuError('invalid', `Secret ${identity.credentialsSecret} has no key "password"`);
    return secret.password;
  };
  const connection = new OpcuaConnection(plan, { lib, pkiDir: context.options.opcuaPkiDir ?? join(tmpdir(), 'edgeshifu-opcua-pki'), password, logger });
  const subscriptions = new OpcuaSubscriptions(connection, lib, logger);
  const nodes = parseNodes(context);
  const io = new NodeIo(connection, plan.endpoint);

  function nodeOf(instruction: Instruction): NodeId {
    const node = nodes.get(instruction.name) ?? parseNodeId(instruction);
    if (node instanceof EdgeshifuError) throw node;
    return node;
  }
  return {
    start(signal) {
      connection.start(signal);
      return Promise.resolve();
    },
    async stop() {
      subscriptions.stop();
      await connection.stop();
    },
    async call(instruction, request) {
      const nodeId = nodeOf(instruction);
      if (request.method === 'GET' || request.method === 'HEAD') return io.read(nodeId, request);
      if (request.method === 'POST' || request.method === 'PUT') return io.write(nodeId, request);
      throw new EdgeshifuError('invalid', `OPC UA instructions answer GET (read) and POST or PUT (write), not ${request.method}`);
    },
    async probe(signal) {
      const session = connection.session();
      try {
        const dv = await bounded(() => session.read({ nodeId: SERVER_STATE, attributeId: lib.AttributeIds.Value }), signal);
        if (isBad(dv)) throw statusError(dv.statusCode.name, SERVER_STATE, 'read');
      } catch (err) {
        if (signal.aborted) throw err;
        throw callError(err, plan.endpoint, SERVER_STATE, 'read');
      }
    },
    subscribe(instruction, intervalMs, sink, signal) {
      let nodeId: NodeId;
      try {
        nodeId = nodeOf(instruction);
      } catch (err) {
        sink.error(err as Error);
        return;
      }
      subscriptions.add({ nodeId, intervalMs, sink, signal, respond: (dv) => readResponse(dv, '') });
    },
  };
}
