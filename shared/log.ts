// Structured JSON logs (pino) for the controller, shifud and the tools. Credentials never reach a
// log line: every field that can carry one is censored here, once. deviceShifu and its host log
// the same lines through shared/json-log.ts instead, without pino's memory.
import { pino, type Logger as PinoLogger, type LoggerOptions } from 'pino';
import { CREDENTIAL_FIELDS, REDACTED, type Logger } from './json-log.ts';
import { isoTime } from './time.ts';

export { CREDENTIAL_FIELDS } from './json-log.ts';
export type { Logger };
export type { PinoLogger };

const REDACT_PATHS = CREDENTIAL_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`, `*.*.*.${f}`, `*.*.*.*.${f}`]);

export interface LogOptions {
  readonly level?: string;
  /** Where lines go; stdout by default. */
  readonly destination?: NodeJS.WritableStream;
}

export function createLogger(component: string, options: LogOptions = {}): PinoLogger {
  const config: LoggerOptions = {
    level: options.level ?? process.env.EDGESHIFU_LOG_LEVEL ?? 'info',
    base: { component },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    // pino's isoTime calls toISOString, which loads ICU's time zone data (shared/time.ts)
    timestamp: () => `,"time":"${isoTime(Date.now())}"`,
    formatters: { level: (label) => ({ level: label }) },
  };
  return options.destination === undefined ? pino(config) : pino(config, options.destination);
}

/**
 * A child logger made on its first use. A pino child runs every binding through the redaction's
 * wildcard paths: ~250 µs and ~135 KB of garbage each under the image's flags (scratch measure,
 * controller/README.md). A reconcile that logs nothing (nearly all of them) then costs nothing.
 */
export function deferredChild(parent: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const made = (): Logger => (child ??= parent.child(bindings));
  // every read goes to the child, so pino's methods (called with this = the proxy) see its state;
  // a grandchild (Object.create(proxy)) keeps what is set on it as its own
  const proxy: Logger = new Proxy(parent, {
    get: (_target, property) => Reflect.get(made(), property) as unknown,
    set: (_target, property, value, receiver) => Reflect.set(made(), property, value, receiver === proxy ? made() : receiver),
    has: (_target, property) => Reflect.has(made(), property),
  });
  return proxy;
}
