// TelemetryService, shifu.edgenesis.io/v1alpha1: where deviceShifu pushes telemetry when a
// telemetry's pushSettings name one. Schema-compatible with Shifu's CRD (every
// field of its types, so Shifu's manifests apply unchanged under kubectl's strict field
// validation); MQTTSetting is the EdgeDevice's, a superset of what Shifu's CRD lists. deviceShifu
// pushes to HTTP and MQTT; SQLSetting and MinIOSetting are accepted and refused at push time.
import { Type, type Static, type TOptional, type TString } from '@sinclair/typebox';
import { MQTTSetting } from './edgedevice.ts';
import { StringMap } from './schema.ts';

function S(description?: string): TOptional<TString> {
  return Type.Optional(Type.String(description === undefined ? {} : { description }));
}

export const TelemetryHTTPSetting = Type.Object({
  username: S('Basic auth user for the endpoint.'),
  password: S('Basic auth password; readable by anyone who can read the TelemetryService.'),
});

export const TelemetryConnectionSetting = Type.Object({
  RequestTimeout: Type.Optional(Type.Integer({ format: 'int64', description: 'Shifu: timeout of a push to its telemetry service (ms).' })),
});

export const SQLSetting = Type.Object({
  serverAddress: S(), username: S(), secret: S(), dbName: S(), dbTable: S(),
  dbtype: S('Shifu: TDengine or MySQL.'),
});

export const MinIOSetting = Type.Object({
  APIId: S(), APIKey: S(), Bucket: S(), EndPoint: S(), FileExtension: S(), Secret: S(),
});

export const ServiceSettings = Type.Object({
  ConnectionSetting: Type.Optional(TelemetryConnectionSetting),
  HTTPSetting: Type.Optional(TelemetryHTTPSetting),
  MQTTSetting: Type.Optional(MQTTSetting),
  SQLSetting: Type.Optional(SQLSetting),
  MinIOSetting: Type.Optional(MinIOSetting),
});

export const TelemetryServiceSpec = Type.Object({
  // sic: Shifu's field name
  telemetrySeriveEndpoint: S('HTTP(S) URL results are POSTed to (with HTTPSetting), unless MQTTSetting is given.'),
  serviceSettings: Type.Optional(ServiceSettings),
  customMetadata: Type.Optional(StringMap()),
});
export type TelemetryServiceSpec = Static<typeof TelemetryServiceSpec>;

export const TelemetryServiceStatus = Type.Object({
  telemetryservicephase: S('Shifu writes none; kept for its manifests.'),
});
export type TelemetryServiceStatus = Static<typeof TelemetryServiceStatus>;
