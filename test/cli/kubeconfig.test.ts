// The CLI reads kubeconfigs as kubectl does, against the real API server: an exec credential
// plugin's token, a two-file $KUBECONFIG merged with --context picking the second file's context,
// a context that does not exist, a plugin that fails, and HTTPS_PROXY / NO_PROXY from the
// environment. Each run is the bin as its own process (test/cli/run.ts).
import test, { type ExecutionContext } from 'ava';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { freePort } from '../support/controlplane/ports.ts';
import { freshNamespace, sharedKube, type Kube } from '../support/cluster.ts';
import { installCrds } from '../support/crds.ts';
import { edgeshifu, shown } from './run.ts';

interface Reader {
  readonly namespace: string;
  readonly token: string;
  readonly server: string;
  readonly ca: string;
}

/** A ServiceAccount allowed to list EdgeDevices in a fresh namespace, and a TokenRequest token of it. */
async function reader(t: ExecutionContext, kube: Kube): Promise<Reader> {
  await installCrds(kube);
  const namespace = await freshNamespace(t, kube, 'cli-creds');
  await kube.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'reader' } } });
  const rbac = kube.kc.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name: 'reader' }, rules: [{ apiGroups: ['shifu.edgenesis.io'], resources: ['edgedevices'], verbs: ['list'] }] } });
  await rbac.createNamespacedRoleBinding({ namespace, body: {
    metadata: { name: 'reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace }],
  } });
  const request = await kube.core.createNamespacedServiceAccountToken({ namespace, name: 'reader', body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const cluster = kube.kc.getCurrentCluster();
  const ca = cluster?.caData === undefined ? await readFile(cluster?.caFile ?? '', 'utf8') : Buffer.from(cluster.caData, 'base64').toString('utf8');
  return { namespace, token: request.status?.token ?? '', server: cluster?.server ?? '', ca };
}

async function folder(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeshifu-cli-kubeconfig-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** An exec credential plugin: a script printing an ExecCredential with `token`, counting its runs. */
async function execPlugin(dir: string, token: string, exitCode = 0): Promise<{ command: string; runs: () => Promise<number> }> {
  const command = join(dir, 'credential-plugin.sh');
  const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } });
  const body = exitCode === 0 ? `printf '%s' '${credential}'` : `echo 'the identity provider refused: session expired' >&2; exit ${String(exitCode)}`;
  await writeFile(command, `#!/bin/sh\necho run >> '${join(dir, 'runs')}'\n${body}\n`);
  await chmod(command, 0o755);
  const runs = async (): Promise<number> => (await readFile(join(dir, 'runs'), 'utf8').catch(() => '')).split('\n').filter((l) => l === 'run').length;
  return { command, runs };
}

interface Entry { readonly name: string; readonly server: string; readonly ca?: string; readonly current?: boolean }

/** One context `name` (cluster and user of that name); current unless `current: false`. */
function config({ name, server, ca, current }: Entry, user: Record<string, unknown>): Record<string, unknown> {
  const cluster = ca === undefined ? { server, 'insecure-skip-tls-verify': true } : { server, 'certificate-authority-data': Buffer.from(ca).toString('base64') };
  return {
    apiVersion: 'v1', kind: 'Config', ...(current === false ? {} : { 'current-context': name }),
    clusters: [{ name, cluster }], users: [{ name, user }], contexts: [{ name, context: { cluster: name, user: name } }],
  };
}

const EXEC_USER = (command: string): Record<string, unknown> => ({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command, interactiveMode: 'Never' } });

test('an exec plugin\'s token authenticates the CLI at the real API server', async (t) => {
  const kube = await sharedKube();
  const sa = await reader(t, kube);
  const dir = await folder(t);
  const plugin = await execPlugin(dir, sa.token);
  await writeFile(join(dir, 'config'), stringify(config({ name: 'exec', server: sa.server, ca: sa.ca }, EXEC_USER(plugin.command))));
  const list = await edgeshifu(['device', 'list', '-n', sa.namespace, '-o', 'json'], { KUBECONFIG: join(dir, 'config') });
  t.is(list.code, 0, shown(list));
  t.deepEqual(JSON.parse(list.stdout), []);
  t.true(await plugin.runs() >= 1, 'the plugin ran');
  // the same ServiceAccount may not list another namespace: the server saw who it was
  const other = await edgeshifu(['device', 'list', '-n', 'default'], { KUBECONFIG: join(dir, 'config') });
  t.is(other.code, 1, shown(other));
  t.regex(other.stderr, new RegExp(`refused \\(.*system:serviceaccount:${sa.namespace}:reader.* cannot list`));
  t.false(other.stderr.includes(sa.token), 'no credential in the message');
});

test('a failing exec plugin is reported as a credentials problem, not an unreachable server', async (t) => {
  const kube = await sharedKube();
  const server = kube.kc.getCurrentCluster()?.server ?? '';
  const dir = await folder(t);
  const plugin = await execPlugin(dir, '', 3);
  await writeFile(join(dir, 'config'), stringify(config({ name: 'sso', server }, EXEC_USER(plugin.command))));
  const list = await edgeshifu(['device', 'list'], { KUBECONFIG: join(dir, 'config') });
  t.is(list.code, 1, shown(list));
  t.regex(list.stderr, /^edgeshifu: cannot list EdgeDevices: no credentials for context "sso" of .*config: .*/);
  t.notRegex(list.stderr, /does not answer/);
});

test('$KUBECONFIG with two files is merged: the first file\'s current-context by default, --context picks the second\'s, an unknown context names those there', async (t) => {
  const kube = await sharedKube();
  const sa = await reader(t, kube);
  const dir = await folder(t);
  const gone = await freePort();
  // the first file: its current context points at nothing that answers
  await writeFile(join(dir, 'first'), stringify(config({ name: 'laptop', server: `https://127.0.0.1:${String(gone)}` }, { token: 'not-a-real-token' })));
  // the second: the real server with a token file beside it (read relative to its folder), no current-context
  await writeFile(join(dir, 'sa-token'), sa.token);
  await writeFile(join(dir, 'second'), stringify(config({ name: 'edge', server: sa.server, ca: sa.ca, current: false }, { tokenFile: 'sa-token' })));
  const env = { KUBECONFIG: [join(dir, 'first'), join(dir, 'missing'), join(dir, 'second')].join(':') };

  const byDefault = await edgeshifu(['device', 'list', '-n', sa.namespace], env);
  t.is(byDefault.code, 1, shown(byDefault));
  t.regex(byDefault.stderr, new RegExp(`the Kubernetes API server at https://127\\.0\\.0\\.1:${String(gone)} .* does not answer`));

  const picked = await edgeshifu(['device', 'list', '-n', sa.namespace, '-o', 'json', '--context', 'edge'], env);
  t.is(picked.code, 0, shown(picked));
  t.deepEqual(JSON.parse(picked.stdout), []);
  // --context before the command words, as a global option
  const before = await edgeshifu(['--context', 'edge', 'device', 'list', '-n', sa.namespace, '-o', 'json'], env);
  t.is(before.code, 0, shown(before));

  const unknown = await edgeshifu(['device', 'list', '--context', 'staging'], env);
  t.is(unknown.code, 1, shown(unknown));
  t.regex(unknown.stderr, /^edgeshifu: context "staging" \(--context\) is not in the kubeconfig merged from .*first, .*second: its contexts: laptop, edge \(from \$KUBECONFIG\)/);
  t.is(unknown.stdout, '');
});

interface Proxy {
  readonly url: string;
  readonly connects: string[];
}

/** An HTTP CONNECT proxy on loopback that resolves the host `kubernetes` to 127.0.0.1 (nothing else does). */
async function connectProxy(t: ExecutionContext): Promise<Proxy> {
  const connects: string[] = [];
  const tunnels = new Set<{ destroy: () => void }>();
  const server: Server = createServer((_req, res) => { res.writeHead(405).end(); });
  server.on('connect', (req, socket) => {
    connects.push(req.url ?? '');
    tunnels.add(socket);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = tcpConnect(Number(port), host === 'kubernetes' ? '127.0.0.1' : (host ?? ''), () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    tunnels.add(upstream);
    upstream.on('error', () => { socket.destroy(); });
    socket.on('error', () => { upstream.destroy(); });
  });
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  // a tunnel is no HTTP connection to closeAllConnections: its sockets are ended here
  t.teardown(() => new Promise<void>((resolve) => { for (const s of tunnels) s.destroy(); server.close(() => { resolve(); }); }));
  const address = server.address();
  return { url: `http://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}`, connects };
}

test('HTTPS_PROXY carries the CLI\'s requests through a CONNECT proxy, with the server\'s certificate still checked; NO_PROXY bypasses it', async (t) => {
  const kube = await sharedKube();
  const sa = await reader(t, kube);
  const dir = await folder(t);
  const proxy = await connectProxy(t);
  // `kubernetes` is a name in the API server's certificate that only the proxy resolves
  const port = new URL(sa.server).port;
  await writeFile(join(dir, 'config'), stringify(config({ name: 'far', server: `https://kubernetes:${port}`, ca: sa.ca }, { token: sa.token })));
  const list = await edgeshifu(['device', 'list', '-n', sa.namespace, '-o', 'json'], { KUBECONFIG: join(dir, 'config'), HTTPS_PROXY: proxy.url, NO_PROXY: 'example.com' });
  t.is(list.code, 0, shown(list));
  t.deepEqual(JSON.parse(list.stdout), []);
  t.true(proxy.connects.includes(`kubernetes:${port}`), proxy.connects.join(', '));

  const before = proxy.connects.length;
  const bypassed = await edgeshifu(['device', 'list', '-n', sa.namespace], { KUBECONFIG: join(dir, 'config'), https_proxy: proxy.url, NO_PROXY: '.example.com,kubernetes' });
  t.is(bypassed.code, 1, shown(bypassed));
  t.regex(bypassed.stderr, /the Kubernetes API server at https:\/\/kubernetes:\d+ .* does not answer \(getaddrinfo (ENOTFOUND|EAI_AGAIN) kubernetes\)/);
  t.is(proxy.connects.length, before, 'NO_PROXY: the proxy was not asked');
});
