// The shape of each ConfigMap key as Shifu's demos write it (README.md).
// Objects stay open: newer demos add keys (hasSideEffects, riskLevel, safe, connectionInfo) that
// deviceShifu does not use, and they must not stop a device from starting.
import { Type, type Static, type TNull, type TString, type TUnion } from '@sinclair/typebox';
import { StringEnum } from '../../shared/crds/schema.ts';

const Nullable = <T extends TString>(schema: T): TUnion<[T, TNull]> => Type.Union([schema, Type.Null()]);
const Scalar = Type.Unsafe<string | number | boolean | null>({ type: ['string', 'number', 'boolean', 'null'] });
const ScalarMap = Type.Union([Type.Record(Type.String(), Scalar), Type.Null()]);
const Millis = Type.Integer({ minimum: 0 });

export const DriverPropertiesFile = Type.Union([Type.Null(), Type.Object({
  driverSku: Type.Optional(Nullable(Type.String())),
  driverImage: Type.Optional(Nullable(Type.String())),
  driverExecution: Type.Optional(Nullable(Type.String())),
})]);

export const InstructionEntry = Type.Union([Type.Null(), Type.Object({
  readWrite: Type.Optional(StringEnum(['R', 'W', 'RW'])),
  description: Type.Optional(Nullable(Type.String())),
  protocolPropertyList: Type.Optional(ScalarMap),
  gatewayPropertyList: Type.Optional(ScalarMap),
  argumentPropertyList: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
})]);

export const InstructionsFile = Type.Union([Type.Null(), Type.Object({
  instructionSettings: Type.Optional(Type.Union([Type.Null(), Type.Object({
    defaultTimeoutSeconds: Type.Optional(Type.Integer()),
  })])),
  instructions: Type.Optional(Type.Union([Type.Null(), Type.Record(Type.String(), InstructionEntry)])),
})]);

export const PushSettings = Type.Union([Type.Null(), Type.Object({
  telemetryCollectionService: Type.Optional(Nullable(Type.String())),
  pushToServer: Type.Optional(Type.Boolean()),
})]);

export const TelemetryEntry = Type.Union([Type.Null(), Type.Object({
  properties: Type.Optional(Type.Union([Type.Null(), Type.Object({
    instruction: Type.Optional(Nullable(Type.String())),
    initialDelayMs: Type.Optional(Millis),
    intervalMs: Type.Optional(Type.Integer({ minimum: 1 })),
    pushSettings: Type.Optional(PushSettings),
  })])),
})]);

export const TelemetriesFile = Type.Union([Type.Null(), Type.Object({
  telemetrySettings: Type.Optional(Type.Union([Type.Null(), Type.Object({
    telemetryUpdateIntervalInMilliseconds: Type.Optional(Type.Integer({ minimum: 1 })),
    telemetryUpdateIntervalInMiliseconds: Type.Optional(Type.Integer({ minimum: 1 })),
    telemetryTimeoutInMilliseconds: Type.Optional(Millis),
    telemetryInitialDelayInMilliseconds: Type.Optional(Millis),
    defaultPushToServer: Type.Optional(Type.Boolean()),
    defaultTelemetryCollectionService: Type.Optional(Nullable(Type.String())),
  })])),
  telemetries: Type.Optional(Type.Union([Type.Null(), Type.Record(Type.String(), TelemetryEntry)])),
})]);

export const ControlMsgsFile = Type.Union([Type.Null(), Type.Record(Type.String(), Type.String())]);

export type DriverPropertiesFile = Static<typeof DriverPropertiesFile>;
export type InstructionsFile = Static<typeof InstructionsFile>;
export type InstructionEntry = Static<typeof InstructionEntry>;
export type TelemetriesFile = Static<typeof TelemetriesFile>;
export type ControlMsgsFile = Static<typeof ControlMsgsFile>;
