// MQTT devices: the broker is reachable when it answers an MQTT 3.1.1 CONNECT with a CONNACK
// (spec 3.1 / 3.2). No credentials are sent (they belong to the deviceShifu): a broker that
// refuses us still answered, so it is up.
import { randomBytes } from 'node:crypto';
import { exchange } from './connection.ts';
import { failureOutcome, type ProbeOutcome } from './outcome.ts';

const CONNACK_CODES = ['accepted', 'unacceptable protocol version', 'identifier rejected', 'server unavailable', 'bad user name or password', 'not authorized'];

/** CONNECT: protocol "MQTT" level 4, clean session, keep-alive 10 s, a random client id. */
export function connectPacket(clientId: string): Buffer {
  const id = Buffer.from(clientId, 'utf8');
  const variable = Buffer.from([0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x0a]);
  const payload = Buffer.concat([Buffer.from([id.length >> 8, id.length & 0xff]), id]);
  const remaining = variable.length + payload.length; // < 128: one length byte (spec 2.2.3)
  return Buffer.concat([Buffer.from([0x10, remaining]), variable, payload]);
}

export async function probeMqtt(host: string, port: number, signal: AbortSignal, timeoutMs: number): Promise<ProbeOutcome> {
  const target = `MQTT broker ${host.includes(':') ? `[${host}]` : host}:${port}`;
  const result = await exchange({ host, port, signal, greeting: connectPacket(`shifud-probe-${randomBytes(4).toString('hex')}`), replyBytes: 4 });
  if (result.kind === 'failed') return failureOutcome(result.error, target);
  if (result.kind === 'timeout') {
    return result.connected
      ? { kind: 'hung', detail: `${target} accepted the connection but sent no CONNACK within ${timeoutMs} ms` }
      : { kind: 'timeout', detail: `no connection to ${target} within ${timeoutMs} ms` };
  }
  const reply = result.reply ?? Buffer.alloc(0);
  if (reply[0] !== 0x20) return { kind: 'wrong-protocol', detail: `${target} answered, but not with an MQTT CONNACK: is it an MQTT broker?` };
  const code = reply[3] ?? 0;
  return { kind: 'answered', detail: `${target} answered (CONNACK: ${CONNACK_CODES[code] ?? `code ${code}`})` };
}
