// deviceShifu's configuration after parsing: every default filled in, every name checked.
export type ReadWrite = 'R' | 'W' | 'RW';

export interface Instruction {
  readonly name: string;
  readonly readWrite: ReadWrite;
  readonly description?: string;
  /** Protocol parameters, e.g. MQTTTopic, OPCUANodeID; values as strings. */
  readonly protocolProperties: Readonly<Record<string, string>>;
  readonly gatewayProperties: Readonly<Record<string, string>>;
}

export interface Telemetry {
  readonly name: string;
  /** Absent: the telemetry only checks that the device (or its broker) is reachable. */
  readonly instruction?: string;
  readonly initialDelayMs: number;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** Name of a TelemetryService (or a URL) to push each result to. */
  readonly pushTo?: string;
}

export interface DeviceShifuConfig {
  readonly driver: { readonly sku?: string; readonly image?: string; readonly execution?: string };
  readonly defaultTimeoutSeconds: number;
  readonly instructions: ReadonlyMap<string, Instruction>;
  readonly telemetries: readonly Telemetry[];
  /** MQTT: command substring → completion substring. */
  readonly controlMsgs: Readonly<Record<string, string>>;
  /** Things accepted but worth telling the user about (misspellings, ignored keys). */
  readonly warnings: readonly string[];
}
