// The CLI's Kubernetes access: the kubeconfig read as kubectl reads it (cli/kubeconfig.ts, on
// client-node) and errors turned into sentences that say what to fix: the API server unreachable,
// credentials refused or not obtained, a CRD missing.
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError, type Query, type RawReply } from '../shared/kube/client.ts';
import { kubeStatusOf } from '../shared/kube/errors.ts';
import { EdgeshifuError, isEdgeshifuError, errorMessage } from '../shared/errors.ts';
import { API_VERSION } from '../shared/crds/resources.ts';
import type { KubeconfigChoice } from './connection.ts';
import { CredentialsError, kubeRequest, makeKubeConfig } from './kube-request.ts';
import { loadKubeconfig, type KubeconfigDocument, type LoadedKubeconfig } from './kubeconfig.ts';

const TIMEOUT_MS = 15_000;
export const FIELD_MANAGER = 'edgeshifu-cli';

export interface KubeList<T> {
  readonly items: T[];
}

/** Paths of the resources the CLI touches. */
export const paths = {
  edgeDevices: (namespace?: string): string => `/apis/${API_VERSION}${namespace === undefined ? '' : `/namespaces/${namespace}`}/edgedevices`,
  edgeDevice: (namespace: string, name: string): string => `/apis/${API_VERSION}/namespaces/${namespace}/edgedevices/${name}`,
  edgeNodes: (): string => `/apis/${API_VERSION}/edgenodes`,
  federations: (): string => `/apis/${API_VERSION}/federations`,
  nodes: (): string => '/api/v1/nodes',
  configMap: (namespace: string, name: string): string => `/api/v1/namespaces/${namespace}/configmaps/${name}`,
  deployment: (namespace: string, name: string): string => `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
  lease: (namespace: string, name: string): string => `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`,
  serviceProxy: (namespace: string, service: string, port: string | number): string => `/api/v1/namespaces/${namespace}/services/${service}:${String(port)}/proxy`,
} as const;

const RETRIES = 5;

/**
 * How long to wait before asking again, or undefined to give up: an API server answers 429 while
 * its watch cache (re)initializes ("storage is (re)initializing", e.g. just after it starts) and
 * 503/504 while it is briefly unable to serve; neither processed the request, so every verb may be
 * retried. Examples: (429, 0) → 250; (503, 2) → 1000; (429, 5) → undefined; (500, 0) → undefined.
 */
export function retryDelayMs(code: number | undefined, attempt: number): number | undefined {
  if (code !== 429 && code !== 503 && code !== 504) return undefined;
  if (attempt >= RETRIES) return undefined;
  return Math.min(2000, 250 * 2 ** attempt);
}

export class ClusterAccess {
  readonly kubeconfig: KubeconfigChoice;
  readonly server: string;
  /** The context in use (--context, else the kubeconfig's current-context). */
  readonly context: string;
  private readonly document: KubeconfigDocument;
  private kc: Promise<KubeConfig> | undefined;

  private constructor(kubeconfig: KubeconfigChoice, loaded: LoadedKubeconfig) {
    this.kubeconfig = kubeconfig;
    this.document = loaded.document;
    this.server = loaded.server;
    this.context = loaded.context;
  }

  kubeConfig(): Promise<KubeConfig> {
    this.kc ??= makeKubeConfig(this.document);
    return this.kc;
  }

  /** Reads the kubeconfig; a missing file, context or server is an 'invalid' error naming it. */
  static open(kubeconfig: KubeconfigChoice, context: string | undefined, env: NodeJS.ProcessEnv): ClusterAccess {
    try {
      return new ClusterAccess(kubeconfig, loadKubeconfig(kubeconfig.files, context, env));
    } catch (err) {
      const message = errorMessage(err);
      throw new EdgeshifuError('invalid', `${message} (from ${kubeconfig.source}): pass --kubeconfig with a readable kubeconfig, or start the local stack with \`edgeshifu up\``);
    }
  }

  async get<T>(path: string, what: string, query?: Query): Promise<T> {
    return this.call(what, () => this.json<T>('GET', path, { query, timeoutMs: TIMEOUT_MS }));
  }

  /** Undefined when the object does not exist. */
  async find<T>(path: string, what: string): Promise<T | undefined> {
    try {
      return await this.get<T>(path, what);
    } catch (err) {
      if (isEdgeshifuError(err, 'not-found')) return undefined;
      throw err;
    }
  }

  async list<T>(path: string, what: string, query?: Query): Promise<T[]> {
    return (await this.get<KubeList<T>>(path, what, query)).items;
  }

  /** Server-side apply under the CLI's field manager, as `kubectl apply --server-side --force-conflicts`. */
  async apply<T>(path: string, object: unknown, what: string): Promise<T> {
    return this.call(what, () => this.json<T>('PATCH', path, {
      query: { fieldManager: FIELD_MANAGER, force: true }, contentType: 'application/apply-patch+yaml', body: JSON.stringify(object), timeoutMs: TIMEOUT_MS,
    }));
  }

  async delete(path: string, what: string): Promise<void> {
    await this.call(what, () => this.json('DELETE', path, { timeoutMs: TIMEOUT_MS }));
  }

  /** Any answer, kept whole (the service proxy relays the answers of what is behind it). */
  async raw(method: string, path: string, what: string, options: { query?: Query; body?: string; contentType?: string; timeoutMs?: number } = {}): Promise<RawReply> {
    return this.call(what, () => kubeRequest(this, method, path, {
      query: options.query, body: options.body, contentType: options.contentType, timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
    }));
  }

  close(): void {
    // client-node keeps no connection open between requests of a short-lived CLI
  }

  /** A 2xx answer parsed as JSON; anything else a KubeApiError carrying the Status. */
  private async json<T>(method: string, path: string, request: Parameters<typeof kubeRequest>[3]): Promise<T> {
    const reply = await kubeRequest(this, method, path, request);
    if (reply.status < 200 || reply.status >= 300) throw new KubeApiError(reply.status, reply.body, `${method} ${path}`);
    return (reply.body === '' ? undefined : JSON.parse(reply.body)) as T;
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await run();
      } catch (err) {
        const delay = retryDelayMs(err instanceof KubeApiError ? err.code : undefined, attempt);
        if (delay === undefined) throw this.explain(err, what);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private explain(err: unknown, what: string): EdgeshifuError {
    if (err instanceof CredentialsError) {
      return new EdgeshifuError('forbidden', `cannot ${what}: no credentials for context "${this.context}" of ${this.kubeconfig.path}: ${err.message}`, { cause: err });
    }
    const status = err instanceof KubeApiError ? kubeStatusOf(err) : undefined;
    const where = `${this.server} (kubeconfig ${this.kubeconfig.path}, from ${this.kubeconfig.source})`;
    if (status === undefined) {
      const message = errorMessage(err);
      return new EdgeshifuError('unavailable', `cannot ${what}: the Kubernetes API server at ${where} does not answer (${message}). Is the cluster up? Start the local stack with \`edgeshifu up\`, or pass --kubeconfig.`, { cause: err });
    }
    const detail = status.message || status.reason || `HTTP ${String(status.code)}`;
    if (status.code === 401 || status.code === 403) {
      return new EdgeshifuError('forbidden', `cannot ${what}: the API server at ${this.server} refused (${detail}). Check the credentials of context "${this.context}" in ${this.kubeconfig.path}.`, { cause: err });
    }
    if (status.code === 404) return new EdgeshifuError('not-found', `cannot ${what}: ${detail}`, { cause: err });
    const kind = status.code === 409 ? 'conflict' : status.code >= 500 ? 'unavailable' : 'invalid';
    return new EdgeshifuError(kind, `cannot ${what}: ${detail}`, { cause: err });
  }
}

/** A 404 on a list of edgeshifu's own resources means its CRDs are not installed. */
export function crdMissing(err: unknown, kind: string): EdgeshifuError | undefined {
  if (!isEdgeshifuError(err, 'not-found')) return undefined;
  return new EdgeshifuError('not-found', `${err.message}: the ${kind} API is not installed on this cluster (kubectl apply -k manifests/crds)`, { cause: err });
}
