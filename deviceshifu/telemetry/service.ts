// Where a telemetry result goes (pure): Shifu's TelemetryService (endpoint + serviceSettings, with
// its misspelled `telemetrySeriveEndpoint`), or a URL written straight into
// telemetryCollectionService. HTTP and MQTT are pushed to directly; SQL and MinIO are not supported.
import type { TelemetryServiceSpec } from '../../shared/crds/telemetryservice.ts';
import { EdgeshifuError } from '../../shared/errors.ts';

export type PushTarget =
  | { readonly kind: 'http'; readonly url: string; readonly username?: string; readonly password?: string }
  | { readonly kind: 'mqtt'; readonly url: string; readonly topic: string; readonly username?: string; readonly password?: string };

export type { TelemetryServiceSpec };

function credentials(username: string | undefined, password: string | undefined): { username?: string; password?: string } {
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** "mqtt://host:port/topic/path" → broker URL and topic "/topic/path" (Shifu topics start with /). */
export function targetOfUrl(text: string): PushTarget | undefined {
  if (/^https?:\/\//i.test(text)) return { kind: 'http', url: text };
  const mqtt = /^(mqtts?):\/\/([^/]+)(\/.*)$/i.exec(text);
  if (mqtt === null) return undefined;
  return { kind: 'mqtt', url: `${mqtt[1] ?? 'mqtt'}://${mqtt[2] ?? ''}`, topic: decodeURIComponent(mqtt[3] ?? '') };
}

export function targetOfService(name: string, spec: TelemetryServiceSpec): PushTarget {
  const mqtt = spec.serviceSettings?.MQTTSetting;
  if (mqtt !== undefined) {
    if (!mqtt.MQTTServerAddress || !mqtt.MQTTTopic) throw new EdgeshifuError('invalid', `TelemetryService ${name}: MQTTSetting needs MQTTServerAddress and MQTTTopic`);
    const url = mqtt.MQTTServerAddress.includes('://') ? mqtt.MQTTServerAddress : `mqtt://${mqtt.MQTTServerAddress}`;
    return { kind: 'mqtt', url, topic: mqtt.MQTTTopic, ...credentials(mqtt.MQTTServerUserName, mqtt.MQTTServerPassword) };
  }
  if (spec.serviceSettings?.SQLSetting !== undefined || spec.serviceSettings?.MinIOSetting !== undefined) {
    throw new EdgeshifuError('invalid', `TelemetryService ${name}: only HTTP and MQTT pushes are supported (SQLSetting and MinIOSetting are not)`);
  }
  const endpoint = spec.telemetrySeriveEndpoint;
  if (endpoint === undefined || !/^https?:\/\//i.test(endpoint)) throw new EdgeshifuError('invalid', `TelemetryService ${name}: telemetrySeriveEndpoint must be an http(s) URL`);
  const http = spec.serviceSettings?.HTTPSetting;
  return { kind: 'http', url: endpoint, ...credentials(http?.username, http?.password) };
}
