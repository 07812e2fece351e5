// The components' small Kubernetes client refuses a kubeconfig it cannot honour, naming what is
// missing, and never builds a client that would send a request without credentials; and what it
// can honour (a token from a ServiceAccount's TokenRequest) really authenticates at the API server.
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { KubeClient, endpointFromKubeconfig } from '../../shared/kube/client.ts';
import { isEdgeshifuError } from '../../shared/errors.ts';
import { sharedKube, freshNamespace } from '../support/cluster.ts';

function kubeconfig(user: Record<string, unknown>, server = 'https://127.0.0.1:6443'): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server, 'insecure-skip-tls-verify': true } }],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    users: [{ name: 'u', user }],
  };
}

const REFUSED: ReadonlyArray<[string, Record<string, unknown>, RegExp]> = [
  ['an exec plugin', { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws', args: ['eks', 'get-token'] } }, /user "u" runs an exec credential plugin \(users\[\]\.user\.exec\)/],
  ['an OIDC auth-provider', { 'auth-provider': { name: 'oidc', config: { 'id-token': 'x' } } }, /user "u" uses an auth-provider/],
  ['basic authentication', { username: 'admin', password: 'secret' }, /username and password \(basic authentication\)/],
  ['impersonation', { token: 't', as: 'someone' }, /impersonates/],
  ['a certificate without its key', { 'client-certificate-data': Buffer.from('x').toString('base64') }, /certificate without its key/],
  ['a tokenFile that cannot be read', { tokenFile: '/nonexistent/token' }, /cannot read tokenFile \/nonexistent\/token/],
  ['no credentials at all', {}, /no credentials this client can send/],
];

for (const [what, user, message] of REFUSED) {
  test(`a kubeconfig with ${what} is refused, naming it`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'config');
    await writeFile(path, stringify(kubeconfig(user)));
    const err = t.throws(() => endpointFromKubeconfig(path));
    t.true(isEdgeshifuError(err, 'invalid'));
    t.regex(err.message, message);
    t.regex(err.message, new RegExp(`^kubeconfig ${path.replace(/[/.]/g, '\\$&')}: `));
    t.throws(() => KubeClient.fromKubeconfig(path), { message }, 'no client is built, so no request goes out without credentials');
  });
}

test('a tokenFile it can read (a ServiceAccount token from the TokenRequest API) authenticates at the real API server', async (t) => {
  const kube = await sharedKube();
  const namespace = await freshNamespace(t, kube, 'tokenfile');
  await kube.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'reader' } } });
  const request = await kube.core.createNamespacedServiceAccountToken({ namespace, name: 'reader', body: { spec: { audiences: [], expirationSeconds: 600 } } });
  const token = request.status?.token ?? '';
  const dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'token'), token);
  const server = kube.kc.getCurrentCluster()?.server ?? '';
  await writeFile(join(dir, 'config'), stringify(kubeconfig({ tokenFile: 'token' }, server)));
  const client = KubeClient.fromKubeconfig(join(dir, 'config'));
  t.teardown(() => { client.close(); });
  const review = await client.request<{ status?: { userInfo?: { username?: string } } }>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  t.is(review.status?.userInfo?.username, `system:serviceaccount:${namespace}:reader`, 'the server authenticated the token, relative to the kubeconfig\'s folder');
});
