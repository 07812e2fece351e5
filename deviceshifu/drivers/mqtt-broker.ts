// Where an MQTT device's broker is and how to log in (MQTTSetting): the address (or spec.address),
// TLS for mqtts:// (ssl://, tls://), and credentials from MQTTServerSecret (keys username, password)
// over the inline MQTTServerUserName/MQTTServerPassword (Shifu ignores the Secret).
import { readFile } from 'node:fs/promises';
import type { IClientOptions } from 'mqtt';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { DriverContext } from './driver.ts';

export function brokerUrl(address: string | undefined): string {
  if (address === undefined || address.trim() === '') {
    throw new EdgeshifuError('invalid', 'an MQTT device needs a broker: set spec.address or protocolSettings.MQTTSetting.MQTTServerAddress');
  }
  const match = /^([a-z]+):\/\/(.*)$/i.exec(address.trim());
  if (match === null) return `mqtt://${address.trim()}`;
  const scheme = (match[1] ?? '').toLowerCase();
  if (scheme === 'ssl' || scheme === 'tls') return `mqtts://${match[2] ?? ''}`;
  if (['mqtt', 'mqtts', 'tcp', 'ws', 'wss'].includes(scheme)) return scheme === 'tcp' ? `mqtt://${match[2] ?? ''}` : address.trim();
  throw new EdgeshifuError('invalid', `MQTT broker address "${address}": scheme ${scheme} is not one of mqtt, mqtts, ssl, tls, ws, wss`);
}

export async function brokerOptions(context: DriverContext): Promise<{ url: string; options: IClientOptions }> {
  const setting = context.spec.protocolSettings?.MQTTSetting ?? {};
  const url = brokerUrl(setting.MQTTServerAddress || context.spec.address);
  let username = setting.MQTTServerUserName || undefined;
  let password = setting.MQTTServerPassword || undefined;
  if (setting.MQTTServerSecret) {
    const secret = await context.secrets(setting.MQTTServerSecret);
    username = secret.username ?? username;
    password = secret.password ?? password;
  }
  const tls = url.startsWith('mqtts://') || url.startsWith('wss://');
  const ca = tls && context.options.mqttCaFile !== undefined ? await readFile(context.options.mqttCaFile) : undefined;
  return { url, options: { username, password, ...(ca === undefined ? {} : { ca }), ...(tls ? { rejectUnauthorized: true } : {}) } };
}
