// Kubernetes bearer tokens in front of the controller's HTTP (the edgeMap and /metrics), when it
// is exposed beyond the cluster (--edgemap-auth): the token is checked with a TokenReview and the
// user it names with a SubjectAccessReview, as kube-rbac-proxy does, so who may read the map is
// ordinary RBAC. Answers are cached briefly per token and rule (a page loads several files and
// keeps a stream open). Probes (/healthz, /readyz) stay open for the kubelet.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeClient } from '../shared/kube/client.ts';
import type { Logger } from '../shared/log.ts';
import { errorMessage } from '../shared/errors.ts';

export interface ResourceRule { readonly verb: string; readonly group: string; readonly resource: string }
export interface NonResourceRule { readonly verb: string; readonly path: string }
export type AccessRule = { readonly resource: ResourceRule } | { readonly nonResource: NonResourceRule };

/** The map shows every EdgeDevice of every namespace: who may list them all may read it. */
export const EDGEMAP_RULE: AccessRule = { resource: { verb: 'list', group: 'shifu.edgenesis.io', resource: 'edgedevices' } };
/** The scrape, as the API server's own /metrics is granted (a ClusterRole with nonResourceURLs). */
export const METRICS_RULE: AccessRule = { nonResource: { verb: 'get', path: '/metrics' } };

export interface UserInfo { readonly username: string; readonly uid?: string; readonly groups?: readonly string[]; readonly extra?: Readonly<Record<string, readonly string[]>> }

export interface Reviewer {
  /** The user the token authenticates, or undefined. */
  authenticate(token: string): Promise<UserInfo | undefined>;
  allowed(user: UserInfo, rule: AccessRule): Promise<boolean>;
}

/** TokenReview and SubjectAccessReview on the API server (RBAC: create on both). */
export function kubeReviewer(client: Pick<KubeClient, 'request'>): Reviewer {
  return {
    authenticate: async (token) => {
      const review = await client.request<{ status?: { authenticated?: boolean; user?: UserInfo } }>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      });
      return review.status?.authenticated === true && review.status.user !== undefined ? review.status.user : undefined;
    },
    allowed: async (user, rule) => {
      const attributes = 'resource' in rule ? { resourceAttributes: rule.resource } : { nonResourceAttributes: rule.nonResource };
      const review = await client.request<{ status?: { allowed?: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, ...attributes } },
      });
      return review.status?.allowed === true;
    },
  };
}

export type Verdict = { readonly status: 200; readonly user: string } | { readonly status: 401 | 403 | 503; readonly reason: string };

export interface TokenGateOptions {
  readonly reviewer: Reviewer;
  /** How long a verdict holds (default 10 s): a revoked token or grant stops working at most this late. */
  readonly ttlMs?: number;
  readonly clock?: () => number;
  readonly logger?: Logger;
}

const MAX_CACHED = 1000;

export class TokenGate {
  private readonly options: TokenGateOptions;
  private readonly cache = new Map<string, { verdict: Verdict; until: number }>();
  /** Reviews asked of the API server (tests and logs). */
  reviews = 0;

  constructor(options: TokenGateOptions) {
    this.options = options;
  }

  async check(authorization: string | undefined, rule: AccessRule): Promise<Verdict> {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (token === undefined) return { status: 401, reason: 'a Kubernetes bearer token is required (Authorization: Bearer <token>, e.g. kubectl create token <serviceaccount>)' };
    const now = (this.options.clock ?? Date.now)();
    // Keyed by the token's digest: the cache never holds a credential.
    const key = `${createHash('sha256').update(token).digest('base64')} ${JSON.stringify(rule)}`;
    const held = this.cache.get(key);
    if (held !== undefined && held.until > now) return held.verdict;
    const verdict = await this.review(token, rule);
    if (verdict.status === 503) return verdict;
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value ?? '');
    this.cache.set(key, { verdict, until: now + (this.options.ttlMs ?? 10_000) });
    return verdict;
  }

  private async review(token: string, rule: AccessRule): Promise<Verdict> {
    this.reviews += 1;
    try {
      const user = await this.options.reviewer.authenticate(token);
      if (user === undefined) return { status: 401, reason: 'the token was not accepted by the API server (expired, revoked or for another cluster)' };
      if (await this.options.reviewer.allowed(user, rule)) return { status: 200, user: user.username };
      return { status: 403, reason: `${user.username} may not ${describe(rule)}` };
    } catch (err) {
      this.options.logger?.warn({ err: errorMessage(err) }, 'token review failed');
      return { status: 503, reason: 'the token cannot be checked now (API server unreachable); try again' };
    }
  }
}

export function describe(rule: AccessRule): string {
  return 'resource' in rule ? `${rule.resource.verb} ${rule.resource.resource}.${rule.resource.group}` : `${rule.nonResource.verb} ${rule.nonResource.path}`;
}

/** REAR's REST routes (controller/rear/README.md): a FLUIDOS buyer lists flavours (GET, or POST a selector) as one who may list Flavors, and reserves or purchases as one who may create Transactions. */
export const REAR_LIST_RULE: AccessRule = { resource: { verb: 'list', group: 'shifu.edgenesis.io', resource: 'flavors' } };
export const REAR_BUY_RULE: AccessRule = { resource: { verb: 'create', group: 'shifu.edgenesis.io', resource: 'transactions' } };

/** The rule a path is held to: /metrics by its own, REAR's routes by theirs, everything else by the map's. */
export function ruleFor(path: string): AccessRule {
  if (path.startsWith('/api/v2/')) return path.startsWith('/api/v2/flavors') ? REAR_LIST_RULE : REAR_BUY_RULE;
  return path === '/metrics' ? METRICS_RULE : EDGEMAP_RULE;
}

/** A guard for controllerServer: true when it answered (401/403/503) and the request goes no further. */
export function tokenGuard(gate: TokenGate): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const verdict = await gate.check(req.headers.authorization, ruleFor(path));
    if (verdict.status === 200) return false;
    const body = `${verdict.reason}\n`;
    res.writeHead(verdict.status, {
      'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body),
      ...(verdict.status === 401 ? { 'www-authenticate': 'Bearer realm="edgeshifu"' } : {}),
    }).end(body);
    return true;
  };
}
