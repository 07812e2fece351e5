// Socket devices' request and reply bodies (pure): `{"command": str, "timeout": s}` in, bytes out
// as `{"message": str, "status": 200}`, in utf-8 or hex as SocketSetting.encoding says.
import { EdgeshifuError } from '../../shared/errors.ts';

export type SocketEncoding = 'utf-8' | 'hex';

export interface SocketCommand {
  readonly bytes: Buffer;
  /** Seconds; 0 or absent = only the request's own deadline. */
  readonly timeoutSeconds: number;
}

function parseJson(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new EdgeshifuError('invalid', 'body must be JSON: {"command": "<text or hex>", "timeout": <seconds>}');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new EdgeshifuError('invalid', 'body must be a JSON object: {"command": "...", "timeout": <seconds>}');
  return value as Record<string, unknown>;
}

export function parseSocketCommand(body: Buffer, encoding: SocketEncoding): SocketCommand {
  const value = parseJson(body);
  const { command, timeout } = value;
  if (typeof command !== 'string') throw new EdgeshifuError('invalid', 'body.command must be a string');
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout))) throw new EdgeshifuError('invalid', 'body.timeout must be a number of seconds');
  if (encoding === 'hex' && !/^([0-9a-fA-F]{2})*$/.test(command)) throw new EdgeshifuError('invalid', 'body.command must be hex (pairs of 0-9a-f) for a device with encoding hex');
  return { bytes: Buffer.from(command, encoding === 'hex' ? 'hex' : 'utf8'), timeoutSeconds: Math.max(0, timeout ?? 0) };
}

export function socketReply(bytes: Buffer, encoding: SocketEncoding): Buffer {
  return Buffer.from(JSON.stringify({ message: bytes.toString(encoding === 'hex' ? 'hex' : 'utf8'), status: 200 }));
}
