// Structured JSON log lines in a few lines of code, for the processes where each MiB counts
// (deviceShifu and its per-node host): pino and its helpers (sonic-boom, thread-stream, the redaction
// compiler, safe-stable-stringify) held about 0.7 MiB of an idle deviceShifu for nothing it needs
// (deviceshifu/README.md, "What deviceShifu adds over its floor"). The line is the one
// shared/log.ts's pino writes: `{"level":"info","time":"<ISO>","component":…,<bindings>,<fields>,"msg":…}`,
// and every field named in CREDENTIAL_FIELDS is censored, at any depth.
import { isoTime } from './time.ts';

// not an ESM import: node:fs's namespace loads fs/promises and what it brings (shared/files.ts)
const { writeSync } = process.getBuiltinModule('node:fs');

/** Field names that hold credentials anywhere in edgeshifu's objects (EdgeDevice, Secrets, bus config, HTTP). */
export const CREDENTIAL_FIELDS = [
  'password', 'Password', 'MQTTServerPassword', 'pskKey', 'IssuedToken', 'token', 'bearerToken',
  'authorization', 'Authorization', 'cookie', 'secret', 'privateKey', 'clientKey', 'keyData', 'tlsKey',
];

export const REDACTED = '[redacted]';

export interface LogFn {
  (fields: object, msg?: string): void;
  (msg: string): void;
}

/** What edgeshifu's code calls on a logger: pino's loggers (shared/log.ts) and this file's both have it. */
export interface Logger {
  level: string;
  fatal: LogFn;
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  trace: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
type LevelName = keyof typeof LEVELS;
const isLevel = (name: string): name is LevelName => Object.hasOwn(LEVELS, name);

const credentials = new Set(CREDENTIAL_FIELDS);

/** JSON.stringify's replacer: credentials censored, errors as pino writes its `err` (type, message, stack). */
function censor(key: string, value: unknown): unknown {
  if (value === undefined) return undefined;
  if (credentials.has(key)) return REDACTED;
  if (value instanceof Error) return { type: value.name, message: value.message, stack: value.stack };
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** A line for anything JSON.stringify refuses (a cycle): objects seen before are written "[Circular]". */
function lenient(line: object): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(line, (key, value: unknown) => {
    const kept = censor(key, value);
    if (typeof kept !== 'object' || kept === null) return kept;
    if (seen.has(kept)) return '[Circular]';
    seen.add(kept);
    return kept;
  });
}

/** Writes all of `text` to stdout, synchronously (no line is lost on exit), waiting out a full non-blocking pipe. */
function writeStdout(text: string): void {
  let rest = Buffer.from(text);
  for (let tries = 0; rest.length > 0 && tries < 1000; tries++) {
    try {
      rest = rest.subarray(writeSync(1, rest));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

export interface JsonLogOptions {
  readonly level?: string;
  /** Where lines go; stdout by default. */
  readonly destination?: NodeJS.WritableStream;
}

type Write = (line: string) => void;

class JsonLogger implements Logger {
  readonly fatal: LogFn;
  readonly error: LogFn;
  readonly warn: LogFn;
  readonly info: LogFn;
  readonly debug: LogFn;
  readonly trace: LogFn;

  private readonly write: Write;
  private readonly bindings: Readonly<Record<string, unknown>>;
  /** The lowest level written; a child starts with its parent's and keeps its own, as pino's do. */
  private threshold: number;

  constructor(write: Write, bindings: Readonly<Record<string, unknown>>, threshold: number) {
    this.write = write;
    this.bindings = bindings;
    this.threshold = threshold;
    this.fatal = this.method('fatal');
    this.error = this.method('error');
    this.warn = this.method('warn');
    this.info = this.method('info');
    this.debug = this.method('debug');
    this.trace = this.method('trace');
  }

  get level(): string {
    return Object.entries(LEVELS).find(([, value]) => value === this.threshold)?.[0] ?? 'info';
  }

  set level(name: string) {
    if (!isLevel(name)) throw new Error(`unknown log level "${name}": use one of ${Object.keys(LEVELS).join(', ')}`);
    this.threshold = LEVELS[name];
  }

  child(bindings: Record<string, unknown>): Logger {
    return new JsonLogger(this.write, { ...this.bindings, ...bindings }, this.threshold);
  }

  private method(level: Exclude<LevelName, 'silent'>): LogFn {
    const value = LEVELS[level];
    return (first: object | string, msg?: string): void => {
      if (value < this.threshold) return;
      // as pino: an Error alone is logged as `err`, with its message as the line's msg
      const fields = typeof first === 'string' ? {} : first instanceof Error ? { err: first } : first;
      const text = typeof first === 'string' ? first : msg ?? (first instanceof Error ? first.message : undefined);
      const line = { level, time: isoTime(Date.now()), ...this.bindings, ...fields, msg: text };
      let json: string;
      try {
        json = JSON.stringify(line, censor);
      } catch {
        json = lenient(line);
      }
      this.write(`${json}\n`);
    };
  }
}

export function createJsonLogger(component: string, options: JsonLogOptions = {}): Logger {
  const level = options.level ?? process.env.EDGESHIFU_LOG_LEVEL ?? 'info';
  const destination = options.destination;
  const logger = new JsonLogger(destination === undefined ? writeStdout : (line) => { destination.write(line); }, { component }, LEVELS.info);
  logger.level = level;
  return logger;
}
