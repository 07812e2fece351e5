// A small Kubernetes REST client on node:https. client-node costs the controller ~86 MB of RSS
// just to import (its generated API classes and undici); the controller needs list, watch,
// get, create, patch (merge and server-side apply) and delete on a dozen paths, which this does
// in a few KB. Errors keep the API server's Status, so toKubeError maps them as before.
import type { IncomingMessage } from 'node:http';
import type { Agent } from 'node:https';
import { isAbsolute, join } from 'node:path';
import { EdgeshifuError, errorMessage } from '../errors.ts';
import { http, https as httpsModule, tls as tlsModule } from '../node-http.ts';
import { yaml } from '../yaml.ts';
import type { WatchFn } from './informer.ts';

// not ESM imports: node:fs's namespace loads fs/promises and what it brings (shared/files.ts)
const { readFileSync } = process.getBuiltinModule('node:fs');
const { homedir } = process.getBuiltinModule('node:os');

export interface KubeEndpoint {
  readonly server: string;
  readonly ca?: string | Buffer;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  /** A bearer token, or a file re-read on each request (projected ServiceAccount tokens rotate). */
  readonly token?: string;
  readonly tokenFile?: string;
  readonly insecureSkipTlsVerify?: boolean;
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface RequestOptions {
  readonly query?: Query;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly timeoutMs?: number;
  /** Sent as is instead of `body` as JSON (a device call through the API server's service proxy). */
  readonly rawBody?: string | Buffer;
}

/** An answer kept whole, whatever its status (requestRaw). */
export interface RawReply {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** An API error carrying the HTTP status and the Status body, as toKubeError expects. */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  readonly code: number;
  readonly body: string;
  constructor(code: number, body: string, what: string) {
    super(`${what}: HTTP ${code}`);
    this.code = code;
    this.body = body;
  }
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function fileOrData(base: string, entry: Record<string, unknown>, name: string): Buffer | undefined {
  const data = entry[`${name}-data`];
  if (typeof data === 'string') return Buffer.from(data, 'base64');
  const file = entry[name];
  return typeof file === 'string' ? readFileSync(file.startsWith('/') ? file : join(base, file)) : undefined;
}

type Named = { name: string } & Record<string, Record<string, unknown> | string | undefined>;

/** The current context of a kubeconfig file. */
const UNSUPPORTED: ReadonlyArray<readonly [readonly string[], string]> = [
  [['exec'], 'runs an exec credential plugin (users[].user.exec), which this component\'s Kubernetes client does not run'],
  [['auth-provider'], 'uses an auth-provider (users[].user.auth-provider, e.g. oidc), which this component\'s Kubernetes client does not support'],
  [['username', 'password'], 'has a username and password (basic authentication), which this component\'s Kubernetes client does not send'],
  [['as', 'as-groups', 'as-uid'], 'impersonates (users[].user.as), which this component\'s Kubernetes client does not support'],
];

/** A kubeconfig's tokenFile, relative to the kubeconfig's folder as kubectl reads it. */
function tokenFileOf(user: Readonly<Record<string, unknown>>, base: string): string | undefined {
  if (typeof user.tokenFile !== 'string') return undefined;
  return isAbsolute(user.tokenFile) ? user.tokenFile : join(base, user.tokenFile);
}

function unreadable(path: string): string | undefined {
  try {
    readFileSync(path);
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

/**
 * Why this client cannot honour a kubeconfig user, or undefined when it can: it speaks client
 * certificates and bearer tokens only, and never sends a request without credentials (a request
 * without them would reach the API server as system:anonymous and fail far from the cause).
 */
export function unsupportedUser(user: Readonly<Record<string, unknown>>, name: string, base: string): string | undefined {
  const needs = 'use a kubeconfig with a client certificate and key, a token or a tokenFile (e.g. a ServiceAccount token)';
  const feature = UNSUPPORTED.find(([keys]) => keys.some((k) => user[k] !== undefined));
  if (feature !== undefined) return `user "${name}" ${feature[1]}: ${needs}`;
  const has = (key: string): boolean => user[key] !== undefined || user[`${key}-data`] !== undefined;
  if (has('client-certificate') !== has('client-key')) return `user "${name}" has a client certificate without its key, or a key without its certificate: give both`;
  const tokenFile = tokenFileOf(user, base);
  const cannot = tokenFile === undefined ? undefined : unreadable(tokenFile);
  if (cannot !== undefined) return `user "${name}": cannot read tokenFile ${String(user.tokenFile)} (${cannot})`;
  if (!has('client-certificate') && typeof user.token !== 'string' && tokenFile === undefined) return `user "${name}" has no credentials this client can send (no client certificate, token or tokenFile): ${needs}`;
  return undefined;
}

function readKubeconfig(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new EdgeshifuError('invalid', `cannot read kubeconfig ${path}: ${errorMessage(err)}`);
  }
}

export function endpointFromKubeconfig(path: string): KubeEndpoint {
  const doc = yaml().parse(readKubeconfig(path)) as { 'current-context'?: string; contexts?: Named[]; clusters?: Named[]; users?: Named[] };
  const base = join(path, '..');
  const context = doc.contexts?.find((c) => c.name === doc['current-context'])?.context as { cluster?: string; user?: string } | undefined;
  const cluster = doc.clusters?.find((c) => c.name === context?.cluster)?.cluster as Record<string, unknown> | undefined;
  const user = (doc.users?.find((u) => u.name === context?.user)?.user ?? {}) as Record<string, unknown>;
  if (cluster === undefined || typeof cluster.server !== 'string') {
    throw new EdgeshifuError('invalid', `kubeconfig ${path}: no cluster server for context "${doc['current-context'] ?? ''}"`);
  }
  const refused = unsupportedUser(user, context?.user ?? '', base);
  if (refused !== undefined) throw new EdgeshifuError('invalid', `kubeconfig ${path}: ${refused}`);
  return {
    server: cluster.server,
    ca: fileOrData(base, cluster, 'certificate-authority'),
    cert: fileOrData(base, user, 'client-certificate'),
    key: fileOrData(base, user, 'client-key'),
    token: typeof user.token === 'string' ? user.token : undefined,
    tokenFile: tokenFileOf(user, base),
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
  };
}

/** In a pod: the API server from the environment, the ServiceAccount's token and CA. */
export function inClusterEndpoint(env: NodeJS.ProcessEnv = process.env): KubeEndpoint {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  if (host === undefined) throw new EdgeshifuError('invalid', 'not in a cluster (no KUBERNETES_SERVICE_HOST): pass --kubeconfig');
  return { server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`, ca: readFileSync(join(SERVICE_ACCOUNT_DIR, 'ca.crt')), tokenFile: join(SERVICE_ACCOUNT_DIR, 'token') };
}

/** --kubeconfig, else $KUBECONFIG, else in-cluster, else ~/.kube/config. */
export function defaultEndpoint(path: string | undefined, env: NodeJS.ProcessEnv = process.env): KubeEndpoint {
  if (path !== undefined) return endpointFromKubeconfig(path);
  const fromEnv = env.KUBECONFIG?.split(':')[0];
  if (fromEnv !== undefined && fromEnv !== '') return endpointFromKubeconfig(fromEnv);
  if (env.KUBERNETES_SERVICE_HOST !== undefined) return inClusterEndpoint(env);
  return endpointFromKubeconfig(join(homedir(), '.kube', 'config'));
}

/** `?k=v&…` of the defined values, or '' (the CLI's client-node request path uses it too). */
export function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export async function readBody(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Calls `each` with every line of a watch's body (one JSON event per line, `\r\n` or `\n`).
 * node:readline did this before; its ESM import also loaded readline/promises, for nothing.
 */
export async function forEachLine(stream: AsyncIterable<string>, each: (line: string) => void): Promise<void> {
  let rest = '';
  const emit = (line: string): void => { each(line.endsWith('\r') ? line.slice(0, -1) : line); };
  for await (const chunk of stream) {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      emit(rest + chunk.slice(start, end));
      rest = '';
      start = end + 1;
    }
    rest += chunk.slice(start);
  }
  if (rest !== '') emit(rest);
}

export class KubeClient {
  readonly endpoint: KubeEndpoint;
  private readonly url: URL;
  private readonly agent: Agent;
  /**
   * Watches hold their connection for as long as they run, so they get a pool of their own:
   * in the bounded one, as many watches as sockets would leave every request queued until a
   * watch ends (the controller with DRONE, REAR and its peering runs 19 informers).
   */
  private readonly watchAgent: Agent;

  /** `maxSockets`: requests' connections open at once (16); watches are not counted. */
  constructor(endpoint: KubeEndpoint, options: { readonly maxSockets?: number } = {}) {
    this.endpoint = endpoint;
    this.url = new URL(endpoint.server);
    // One secure context for every connection: without it tls.connect builds one per connection
    // (an OpenSSL context, the CA, certificate and key parsed again), for each watch renewed.
    const secureContext = this.url.protocol === 'https:' ? tlsModule().createSecureContext({ ca: endpoint.ca, cert: endpoint.cert, key: endpoint.key }) : undefined;
    const tls = { secureContext, rejectUnauthorized: endpoint.insecureSkipTlsVerify !== true };
    this.agent = new (httpsModule().Agent)({ keepAlive: true, maxSockets: options.maxSockets ?? 16, ...tls });
    // kept alive too: a watch the server ended (timeoutSeconds) is renewed on the same connection, without a new TLS handshake
    this.watchAgent = new (httpsModule().Agent)({ keepAlive: true, ...tls });
  }

  static fromKubeconfig(path: string): KubeClient {
    return new KubeClient(endpointFromKubeconfig(path));
  }

  private headers(contentType: string | undefined): Record<string, string> {
    const token = this.endpoint.tokenFile === undefined ? this.endpoint.token : readFileSync(this.endpoint.tokenFile, 'utf8').trim();
    return {
      accept: 'application/json',
      ...(contentType === undefined ? {} : { 'content-type': contentType }),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    };
  }

  private open(method: string, path: string, options: RequestOptions & { readonly agent?: Agent }, signal?: AbortSignal): Promise<IncomingMessage> {
    const agent = options.agent ?? this.agent;
    const https = this.url.protocol === 'https:';
    const send = https ? httpsModule().request : http.request;
    return new Promise((resolve, reject) => {
      const req = send({
        host: this.url.hostname, port: this.url.port, method, path: `${this.url.pathname.replace(/\/$/, '')}${path}${queryString(options.query)}`,
        headers: this.headers(options.body === undefined && options.rawBody === undefined ? undefined : (options.contentType ?? 'application/json')),
        ...(https ? { agent } : {}), signal, timeout: options.timeoutMs ?? 30_000,
      }, resolve);
      req.on('timeout', () => { req.destroy(new EdgeshifuError('timeout', `${method} ${path}: no answer within ${options.timeoutMs ?? 30_000} ms`)); });
      req.on('error', reject);
      req.end(options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)));
    });
  }

  /** One request; a non-2xx answer throws KubeApiError with the Status body. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.open(method, path, options);
    const text = await readBody(res);
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300) throw new KubeApiError(code, text, `${method} ${path}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** One request whose answer comes back whole, 2xx or not (the service proxy relays a device's errors). */
  async requestRaw(method: string, path: string, options: RequestOptions = {}): Promise<RawReply> {
    const res = await this.open(method, path, options);
    const body = await readBody(res);
    return { status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', body };
  }

  /** A watch stream: one callback per event line, resolves when the server ends it. */
  readonly watch: WatchFn = async (path, query, onEvent, signal) => {
    const res = await this.open('GET', path, { query: { ...query, watch: true }, timeoutMs: 0, agent: this.watchAgent }, signal);
    if ((res.statusCode ?? 0) !== 200) {
      const body = await readBody(res);
      throw new KubeApiError(res.statusCode ?? 0, body, `watch ${path}`);
    }
    res.setEncoding('utf8');
    try {
      await forEachLine(res, (line) => {
        if (line === '') return;
        const event = JSON.parse(line) as { type: string; object: unknown };
        onEvent(event.type, event.object);
      });
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
  };

  close(): void {
    this.agent.destroy();
    this.watchAgent.destroy();
  }
}
