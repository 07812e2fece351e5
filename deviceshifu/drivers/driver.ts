// The one interface every protocol module implements: the gateway turns an HTTP request
// into a DriverRequest, a driver turns it into device traffic. A new protocol (OPC UA, LwM2M,
// Modbus) is one new module exporting a DriverFactory, registered in drivers/index.ts.
import type { Readable } from 'node:stream';
import type { Logger } from '../../shared/log.ts';
import type { EdgeDeviceSpec } from '../../shared/crds/edgedevice.ts';
import type { Lwm2mRegistration } from '../../shared/crds/lwm2m-status.ts';
import type { DeviceShifuConfig, Instruction } from '../config/types.ts';
import type { RawHeaders } from './headers.ts';

export interface DriverRequest {
  readonly method: string;
  /** The caller's query as sent (`?…`, or ''), byte for byte, without deviceShifu's own `timeout`. */
  readonly query: string;
  /** Caller headers safe to pass to a device, as a raw list (headers.ts has already removed credentials). */
  readonly headers: RawHeaders;
  readonly body: Buffer;
  /** The deadline of this call, 0 for none: some devices take it as a parameter (HTTPCommandline). */
  readonly timeoutSeconds: number;
  /** Aborts on the deadline or when the caller goes away: the driver must stop its device traffic. */
  readonly signal: AbortSignal;
}

export interface DriverResponse {
  readonly status: number;
  /** For the caller: a raw list (name, value…) or an object. */
  readonly headers: RawHeaders | Readonly<Record<string, string>>;
  /** Streamed straight back to the caller when it is a stream. */
  readonly body: Buffer | Readable;
}

export interface Driver {
  /** Starts background work (connections, subscriptions, listeners); resolves promptly, never throws for an absent device. */
  start(signal: AbortSignal): Promise<void>;
  /** Stops everything start began and releases every socket. */
  stop(): Promise<void>;
  /**
   * One call to the device. Throws EdgeshifuError: unavailable (device unreachable, bad reply),
   * timeout, invalid (bad argument), conflict (device busy, e.g. controlMsgs).
   */
  call(instruction: Instruction, request: DriverRequest): Promise<DriverResponse>;
  /** Cheap reachability check (connect, broker link): resolves when the device can be reached now. */
  probe(signal: AbortSignal): Promise<void>;
  /**
   * Optional: the device pushes an instruction's value (OPC UA monitored items) instead of being
   * polled. Telemetry uses it when present; it runs until `signal` aborts and survives reconnects.
   */
  subscribe?(instruction: Instruction, intervalMs: number, sink: SubscriptionSink, signal: AbortSignal): void;
}

/** Where a subscription delivers: a new value, a sign of life without one, or a failure. */
export interface SubscriptionSink {
  value(response: DriverResponse): void;
  alive(): void;
  error(err: Error): void;
}

/** Where a driver reads secrets referenced by the EdgeDevice (e.g. MQTTServerSecret). */
export type SecretReader = (name: string) => Promise<Readonly<Record<string, string>>>;

export interface DriverOptions {
  /** Address deviceShifu's own listeners bind to (TCP proxy). */
  readonly bindAddress: string;
  /** Overrides TCPSetting.ListenPort (0 = any free port, for tests). */
  readonly tcpListenPort?: number;
  /** CA bundle for mqtts:// brokers. */
  readonly mqttCaFile?: string;
  /** MQTT controlMsgs: longest wait for a command's completion message, 0 = no limit (default 60 s). */
  readonly controlMsgsTimeoutMs?: number;
  /** OPC UA: where the ConfigMap or Secret with CertificateFileName and PrivateKeyFileName is mounted. */
  readonly opcuaCertificateDir?: string;
  /** LwM2M: UDP port of the server the device registers with (default 5683; 0 = any free port, for tests). */
  readonly lwm2mListenPort?: number;
  /** OPC UA: writable directory for the client's PKI (its own certificate, servers' certificates). */
  readonly opcuaPkiDir?: string;
}

/** Records what a driver learnt about its device in the EdgeDevice's status (Kubernetes mode): null removes it. Never throws; writes are retried. */
export type StatusReporter = (status: { readonly lwm2m: Lwm2mRegistration | null }) => void;

export interface DriverContext {
  readonly deviceName: string;
  readonly spec: EdgeDeviceSpec;
  readonly config: DeviceShifuConfig;
  readonly options: DriverOptions;
  readonly secrets: SecretReader;
  readonly logger: Logger;
  readonly reportStatus?: StatusReporter;
}

export type DriverFactory = (context: DriverContext) => Driver;
