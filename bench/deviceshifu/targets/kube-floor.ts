// The floor of deviceShifu in Kubernetes mode (--kube only): the bare node:http proxy of
// node-floor.ts with deviceShifu's flags, holding one HTTPS watch on its EdgeDevice on the API
// server, the least any deviceShifu that follows the API and writes its status must hold: node:https
// and TLS loaded, one OpenSSL secure context, one TLS connection. The watch is renewed as the
// Informer renews it (timeoutSeconds 25) on the same kept-alive connection, each event line parsed.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deviceShifuNodeFlags } from '../../node-flags.ts';
import { endpointFromKubeconfig } from '../../../shared/kube/client.ts';
import { madeCgroup, spawnReady, stopChild, type BenchContext, type Target } from '../target.ts';
import { edgeDevice, kubeEnvironment } from './deviceshifu-dedicated.ts';
import { PROXY_SCRIPT } from './node-floor.ts';

const WATCH_SCRIPT = `
const https = process.getBuiltinModule('node:https');
const tls = process.getBuiltinModule('node:tls');
const fs = process.getBuiltinModule('node:fs');
const e = process.env;
const api = new URL(e.KUBE_SERVER);
const read = (path) => (path ? fs.readFileSync(path) : undefined);
const secureContext = tls.createSecureContext({ ca: read(e.KUBE_CA), cert: read(e.KUBE_CERT), key: read(e.KUBE_KEY) });
const watchAgent = new https.Agent({ keepAlive: true, secureContext });
const headers = { accept: 'application/json', ...(e.KUBE_TOKEN ? { authorization: 'Bearer ' + e.KUBE_TOKEN } : {}) };
let events = 0;
// ready once the watch has brought the EdgeDevice: the bench then knows the floor holds its watch
const announce = () => console.log(JSON.stringify({ watching: true, address: '127.0.0.1:' + server.address().port }));
const watch = () => {
  const req = https.request({ host: api.hostname, port: api.port, path: e.WATCH_PATH, agent: watchAgent, headers }, (res) => {
    if (res.statusCode !== 200) { console.error("the floor's watch got HTTP " + res.statusCode); process.exit(1); }
    let rest = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      const lines = (rest + chunk).split('\\n');
      rest = lines.pop();
      for (const line of lines) {
        if (line === '') continue;
        JSON.parse(line);
        events += 1;
        if (events === 1) { if (server.listening) announce(); else server.once('listening', announce); }
      }
    });
    res.on('end', () => setTimeout(watch, 100));
  });
  req.on('error', () => setTimeout(watch, 1000));
  req.end();
};
watch();`;

/** The API server's address and credentials as files the floor reads (mode 0600, in the run's scratch directory). */
async function credentials(context: BenchContext, kubeconfig: string): Promise<NodeJS.ProcessEnv> {
  const endpoint = endpointFromKubeconfig(kubeconfig);
  const env: NodeJS.ProcessEnv = { KUBE_SERVER: endpoint.server, ...(endpoint.token === undefined ? {} : { KUBE_TOKEN: endpoint.token }) };
  for (const [name, value] of [['KUBE_CA', endpoint.ca], ['KUBE_CERT', endpoint.cert], ['KUBE_KEY', endpoint.key]] as const) {
    if (value === undefined) continue;
    const path = join(context.dir, `kube-floor-${name.toLowerCase()}.pem`);
    await writeFile(path, value, { mode: 0o600 });
    await chmod(path, 0o600);
    env[name] = path;
  }
  return env;
}

export const kubeFloor: Target = {
  name: 'node proxy + watch',
  needs: 'kube',
  start: async (context) => {
    const name = 'edgedevice-bench-kube-floor';
    const kube = await kubeEnvironment(edgeDevice(name, context.device), name);
    const flags = context.nodeFlags ?? deviceShifuNodeFlags();
    const cgroup = await context.cgroup('kube-floor');
    const env = { DEVICE: context.device, ...(await credentials(context, String(kube.env.KUBECONFIG))),
      WATCH_PATH: `/apis/shifu.edgenesis.io/v1alpha1/namespaces/devices/edgedevices?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}&watch=true&allowWatchBookmarks=true&timeoutSeconds=25` };
    const started = await spawnReady(process.execPath, [...flags, '-e', `${PROXY_SCRIPT}\n${WATCH_SCRIPT}`], (l) => l.watching === true, { cgroup, env })
      .catch(async (err: unknown) => { await kube.stop(); throw err; });
    const { child, line } = started;
    return {
      urls: [`http://${String(line.address)}/${context.path}`], pids: [child.pid ?? 0], devices: 1, ...madeCgroup(cgroup),
      describe: `bare node:http proxy holding one HTTPS watch on its EdgeDevice: node ${process.version} ${flags.join(' ')}`,
      stop: async () => { await stopChild(child, cgroup); await kube.stop(); },
    };
  },
};
