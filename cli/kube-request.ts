// One request to the API server with everything the kubeconfig says about reaching it: client-node
// (loaded at the first request) fills in the TLS options, the agent (a proxy's, when one is set) and the credentials, running an
// exec plugin or refreshing an OIDC token as needed; node:http(s) sends it. A failure to get
// credentials is a CredentialsError, so it is never reported as an unreachable server.
import type { IncomingMessage, RequestOptions as HttpRequestOptions } from 'node:http';
import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { EdgeshifuError, errorMessage } from '../shared/errors.ts';
import { queryString, readBody, type Query, type RawReply } from '../shared/kube/client.ts';
import type { KubeconfigDocument } from './kubeconfig.ts';

export interface KubeRequest {
  readonly query?: Query;
  /** Sent as is; `contentType` says what it is. */
  readonly body?: string;
  readonly contentType?: string;
  readonly timeoutMs: number;
}

/** The API server and how to authenticate there. */
export interface KubeTarget {
  readonly server: string;
  kubeConfig(): Promise<KubeConfig>;
}

/** client-node's KubeConfig for a document cli/kubeconfig.ts merged (paths already absolute). */
export async function makeKubeConfig(document: KubeconfigDocument): Promise<KubeConfig> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromString(JSON.stringify(document));
  return kc;
}

export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
}

/** Options with the kubeconfig's TLS, agent and credentials applied. */
async function authenticated(kc: KubeConfig, headers: Record<string, string>): Promise<https.RequestOptions> {
  const options: https.RequestOptions = { headers };
  try {
    await kc.applyToHTTPSOptions(options);
  } catch (err) {
    throw new CredentialsError(errorMessage(err), { cause: err });
  }
  return options;
}

/** Sends one request to `server` + `path`; the answer comes back whole, whatever its status. */
export async function kubeRequest(target: KubeTarget, method: string, path: string, request: KubeRequest): Promise<RawReply> {
  const url = new URL(target.server);
  const kc = await target.kubeConfig();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.body !== undefined) headers['content-type'] = request.contentType ?? 'application/json';
  const options = await authenticated(kc, headers);
  const requestPath = `${url.pathname.replace(/\/$/, '')}${path}${queryString(request.query)}`;
  const send = url.protocol === 'https:' ? https.request : http.request;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = send({
      ...(options as HttpRequestOptions), protocol: url.protocol, hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port, method, path: requestPath, timeout: request.timeoutMs,
    }, resolve);
    req.on('timeout', () => { req.destroy(new EdgeshifuError('timeout', `${method} ${path}: no answer within ${String(request.timeoutMs)} ms`)); });
    req.on('error', reject);
    req.end(request.body);
  });
  const body = await readBody(res);
  return { status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', body };
}
