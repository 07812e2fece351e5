// OPC UA status codes and client failures → EdgeshifuError kinds, in one place (pure). The kinds
// become HTTP statuses in http/problem.ts: not-found 404, invalid 400, forbidden 403, timeout 504,
// unavailable 502.
import { EdgeshifuError, type ErrorKind, errorMessage } from '../../shared/errors.ts';

const KIND_OF_STATUS: Readonly<Record<string, ErrorKind>> = {
  BadNodeIdUnknown: 'not-found',
  BadAttributeIdInvalid: 'invalid',
  BadNodeIdInvalid: 'invalid',
  BadTypeMismatch: 'invalid',
  BadOutOfRange: 'invalid',
  BadWriteNotSupported: 'invalid',
  BadIndexRangeInvalid: 'invalid',
  BadUserAccessDenied: 'forbidden',
  BadNotWritable: 'forbidden',
  BadNotReadable: 'forbidden',
  BadIdentityTokenInvalid: 'forbidden',
  BadIdentityTokenRejected: 'forbidden',
  BadCertificateUntrusted: 'forbidden',
  BadSecurityChecksFailed: 'forbidden',
  BadSecurityModeRejected: 'forbidden',
  BadSecurityPolicyRejected: 'forbidden',
  BadTimeout: 'timeout',
  BadRequestTimeout: 'timeout',
};

const HINTS: Readonly<Record<string, string>> = {
  BadNodeIdUnknown: 'the server has no such node: check OPCUANodeID',
  BadNodeIdInvalid: 'the server cannot parse the node id: check OPCUANodeID',
  BadNotWritable: 'the node is read-only on the server',
  BadNotReadable: 'the node cannot be read by this user',
  BadUserAccessDenied: 'the server denies this user: check AuthenticationMode, Username and the password',
  BadIdentityTokenInvalid: 'the server rejected the credentials: check AuthenticationMode, Username and the password',
  BadIdentityTokenRejected: 'the server rejected the credentials: check AuthenticationMode, Username and the password',
  BadCertificateUntrusted: 'the server does not trust deviceShifu\'s certificate: add it to the server\'s trusted list',
  BadSecurityChecksFailed: 'the secure channel was refused: check SecurityMode, SecurityPolicy and the certificates',
};

/** The kind for a status code name (BadNodeIdUnknown, …); any other Bad status means the device failed. */
export function kindOfStatus(name: string): ErrorKind {
  return KIND_OF_STATUS[name] ?? 'unavailable';
}

/** A Bad status answered for one node. */
export function statusError(name: string, nodeId: string, action: 'read' | 'write' | 'subscribe to'): EdgeshifuError {
  const hint = HINTS[name];
  return new EdgeshifuError(kindOfStatus(name), `OPC UA server answered ${name} to ${action} node ${nodeId}${hint === undefined ? '' : `: ${hint}`}`);
}

/** A status code name found in an error thrown by the client ("… BadUserAccessDenied (0x801f0000)"). */
export function statusNameIn(err: unknown): string | undefined {
  const e = err as { statusCode?: { name?: unknown }; message?: unknown } | null;
  if (typeof e?.statusCode?.name === 'string') return e.statusCode.name;
  const text = typeof e?.message === 'string' ? e.message : '';
  return /\b(Bad[A-Z][A-Za-z]+)\b/.exec(text)?.[1];
}

const TIMEOUT_TEXT = /timed? ?out|timeout/i;

/** A failure to connect or open a session at `endpoint`, worded for the person reading the reply. */
export function connectError(err: unknown, endpoint: string): EdgeshifuError {
  if (err instanceof EdgeshifuError) return err;
  const message = errorMessage(err);
  const status = statusNameIn(err);
  if (status !== undefined && kindOfStatus(status) !== 'unavailable') {
    return new EdgeshifuError(kindOfStatus(status), `OPC UA server at ${endpoint} refused the session with ${status}${HINTS[status] === undefined ? '' : `: ${HINTS[status]}`}`, { cause: err });
  }
  const policy = /Cannot find (\w+) user token policy/i.exec(message);
  if (policy !== null) return new EdgeshifuError('forbidden', `OPC UA server at ${endpoint} does not accept ${policy[1] ?? ''} identities: set OPCUASetting.AuthenticationMode to one it offers`, { cause: err });
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message)) return new EdgeshifuError('unavailable', `OPC UA server at ${endpoint} refused the connection`, { cause: err });
  if (TIMEOUT_TEXT.test(message)) return new EdgeshifuError('unavailable', `OPC UA server at ${endpoint} did not answer in time (${message.split('\n')[0] ?? ''})`, { cause: err });
  return new EdgeshifuError('unavailable', `OPC UA server at ${endpoint} is unreachable: ${message.split('\n')[0] ?? message}`, { cause: err });
}

/** A failure of one service call (read, write) on an open session. */
export function callError(err: unknown, endpoint: string, nodeId: string, action: 'read' | 'write'): EdgeshifuError {
  if (err instanceof EdgeshifuError) return err;
  const status = statusNameIn(err);
  if (status !== undefined) return statusError(status, nodeId, action);
  const message = errorMessage(err);
  if (TIMEOUT_TEXT.test(message)) return new EdgeshifuError('timeout', `OPC UA server at ${endpoint} did not answer the ${action} of node ${nodeId} in time`, { cause: err });
  return new EdgeshifuError('unavailable', `OPC UA server at ${endpoint} failed the ${action} of node ${nodeId}: ${message.split('\n')[0] ?? message}`, { cause: err });
}
