// The exposed edgeMap on a real API server: the controller (on its own ServiceAccount token and
// the RBAC of manifests/controller/rbac.yaml) checks each caller's bearer token with a TokenReview
// and its rights with a SubjectAccessReview: no token 401, a ServiceAccount without the grant 403,
// one with it 200; verdicts are cached briefly, and a grant taken away stops working.
import test, { type ExecutionContext } from 'ava';
import { fileURLToPath } from 'node:url';
import { endpointFromKubeconfig, KubeClient } from '../../shared/kube/client.ts';
import { controllerServer, listen } from '../../controller/server.ts';
import { controllerRegistry } from '../../controller/metrics.ts';
import { kubeReviewer, TokenGate, tokenGuard } from '../../controller/http-auth.ts';
import type { HttpRoute } from '../../shared/node-http.ts';
import { freshNamespace, sharedKube, uniqueName, type Kube } from '../support/cluster.ts';
import { kubectl } from '../support/kubectl.ts';
import { waitFor } from '../support/wait.ts';

const MANIFESTS = fileURLToPath(new URL('../../manifests/controller/', import.meta.url));

async function apply(kube: Kube, args: string[], input?: string): Promise<void> {
  const result = await kubectl(kube.kubeconfigPath, args, input);
  if (result.code !== 0) throw new Error(result.stderr);
}

async function token(kube: Kube, namespace: string, name: string): Promise<string> {
  const made = await kube.core.createNamespacedServiceAccountToken({ namespace, name, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  return made.status?.token ?? '';
}

/** The controller's client on its own ServiceAccount token, with the manifests' RBAC. */
async function controllerClient(t: ExecutionContext, kube: Kube): Promise<KubeClient> {
  for (const file of ['namespaces.yaml', 'rbac.yaml']) await apply(kube, ['apply', '-f', `${MANIFESTS}${file}`]);
  const admin = endpointFromKubeconfig(kube.kubeconfigPath);
  const client = new KubeClient({ server: admin.server, ca: admin.ca, token: await token(kube, 'edgeshifu-system', 'edgeshifu-controller') });
  t.teardown(() => { client.close(); });
  return client;
}

async function serve(t: ExecutionContext, gate: TokenGate): Promise<string> {
  const map: HttpRoute = (req, res) => {
    if (!(req.url ?? '').startsWith('/edgemap')) return false;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('the map');
    return true;
  };
  const server = controllerServer({ registry: controllerRegistry(), ready: () => ({ ok: true, detail: 'leading' }), routes: [map], guard: tokenGuard(gate) });
  const { port } = await listen(server, '127.0.0.1', 0);
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }));
  return `http://127.0.0.1:${String(port)}`;
}

const get = (url: string, bearer?: string): Promise<Response> => fetch(url, bearer === undefined ? {} : { headers: { authorization: `Bearer ${bearer}` } });

test('the exposed edgeMap: no token 401, a ServiceAccount without the grant 403, with it 200; probes stay open; a grant taken away stops working', async (t) => {
  const kube = await sharedKube();
  const client = await controllerClient(t, kube);
  const namespace = await freshNamespace(t, kube, 'map');
  const role = uniqueName('edgeshifu-map-reader');
  await apply(kube, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader', namespace } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'stranger', namespace } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules: [
        { apiGroups: ['shifu.edgenesis.io'], resources: ['edgedevices'], verbs: ['list'] },
        { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      ] },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: role }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace }] },
    ],
  }));
  t.teardown(async () => { await kubectl(kube.kubeconfigPath, ['delete', 'clusterrole,clusterrolebinding', role, '--ignore-not-found']); });
  const [reader, stranger] = [await token(kube, namespace, 'reader'), await token(kube, namespace, 'stranger')];

  const gate = new TokenGate({ reviewer: kubeReviewer(client) });
  const base = await serve(t, gate);
  t.is((await get(`${base}/healthz`)).status, 200, 'the kubelet\'s probes need no token');

  const none = await get(`${base}/edgemap/`);
  t.is(none.status, 401);
  t.is(none.headers.get('www-authenticate'), 'Bearer realm="edgeshifu"');
  t.regex(await none.text(), /bearer token is required/);
  t.is((await get(`${base}/edgemap/`, 'not-a-token')).status, 401, 'a token the API server does not know');

  const denied = await get(`${base}/edgemap/`, stranger);
  t.is(denied.status, 403);
  t.regex(await denied.text(), new RegExp(`system:serviceaccount:${namespace}:stranger may not list edgedevices\\.shifu\\.edgenesis\\.io`));
  t.is((await get(`${base}/metrics`, stranger)).status, 403);

  const allowed = await get(`${base}/edgemap/`, reader);
  t.is(allowed.status, 200);
  t.is(await allowed.text(), 'the map');
  const metrics = await get(`${base}/metrics`, reader);
  t.is(metrics.status, 200);
  t.regex(await metrics.text(), /edgeshifu_process_resident_memory_bytes/);

  // Cached: the same token and rule again asks the API server nothing.
  const asked = gate.reviews;
  t.is((await get(`${base}/edgemap/data`, reader)).status, 200);
  t.is(gate.reviews, asked);

  // Without the cache, a grant taken away is refused at the next request.
  const fresh = new TokenGate({ reviewer: kubeReviewer(client), ttlMs: 0 });
  const base2 = await serve(t, fresh);
  t.is((await get(`${base2}/edgemap/`, reader)).status, 200);
  await apply(kube, ['delete', 'clusterrolebinding', role]);
  await waitFor('the reader refused once its binding is gone', async () => ((await get(`${base2}/edgemap/`, reader)).status === 403 ? true : undefined), { timeoutMs: 20_000 });
  t.pass();
});
