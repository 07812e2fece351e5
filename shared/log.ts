// Structured JSON logs (pino). Credentials never reach a log line: every field that can carry one
// is censored here, once, for every component.
import { pino, type Logger, type LoggerOptions } from 'pino';
import { isoTime } from './time.ts';

export type { Logger } from 'pino';

/** Field names that hold credentials anywhere in edgeshifu's objects (EdgeDevice, Secrets, bus config, HTTP). */
export const CREDENTIAL_FIELDS = [
  'password', 'Password', 'MQTTServerPassword', 'pskKey', 'IssuedToken', 'token', 'bearerToken',
  'authorization', 'Authorization', 'cookie', 'secret', 'privateKey', 'clientKey', 'keyData', 'tlsKey',
];

const REDACT_PATHS = CREDENTIAL_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`, `*.*.*.${f}`, `*.*.*.*.${f}`]);

export interface LogOptions {
  readonly level?: string;
  /** Where lines go; stdout by default. */
  readonly destination?: NodeJS.WritableStream;
}

export function createLogger(component: string, options: LogOptions = {}): Logger {
  const config: LoggerOptions = {
    level: options.level ?? process.env.EDGESHIFU_LOG_LEVEL ?? 'info',
    base: { component },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // pino's isoTime calls toISOString, which loads ICU's time zone data (shared/time.ts)
    timestamp: () => `,"time":"${isoTime(Date.now())}"`,
    formatters: { level: (label) => ({ level: label }) },
  };
  return options.destination === undefined ? pino(config) : pino(config, options.destination);
}
