// LwM2M deviceShifu benchmark: deviceShifu's LwM2M server and the mock LwM2M client (its own
// process, registered with it) on loopback; reads of the temperature resource /3303/0/5700 through
// deviceShifu (GET /temperature → CoAP GET to the client) against node-coap's own client reading
// the same resource straight from the mock, in the same run, at 1 and 8 callers; then
// deviceShifu's RSS and container working set (bench/container-memory.ts), idle and after load.
//   npm run bench:deviceshifu -- --protocol lwm2m [--idle-seconds 20]
// deviceShifu runs as the controller's Deployment runs it: the esbuild bundle on node with
// deviceShifu's own NODE_FLAGS (controller/bundle/node-flags.ts), as the other protocols' rows; the
// mock with the image's NODE_FLAGS. Each row stops after BENCH_REQUESTS reads or BENCH_SECONDS seconds.
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent as HttpAgent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Agent as CoapAgent } from 'coap';
import { stringify } from 'yaml';
import { describeContainerMemory, memoryCgroup, type MemoryCgroup } from './container-memory.ts';
import { deviceShifuNodeFlags, imageNodeFlags } from './node-flags.ts';
import { httpGet, load, REQUESTS, rssOf, SECONDS, start } from './protocol-load.ts';

const CONCURRENCY = [1, 8];
const ROOT = new URL('../', import.meta.url);
const { values } = parseArgs({ options: { 'idle-seconds': { type: 'string', default: '20' }, 'lwm2m-port': { type: 'string', default: '25683' } } });
const IDLE_SECONDS = Number(values['idle-seconds']);

const NUMBER = /^-?\d+(\.\d+)?$/;

function coapGet(agent: CoapAgent, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = agent.request({ host, port, pathname: '/3303/0/5700', method: 'GET', confirmable: true, options: { Accept: 'text/plain' } });
    req.on('response', (res: { code: string; payload: Buffer }) => { if (res.code === '2.05' && NUMBER.test(res.payload.toString())) resolve(); else reject(new Error(`code ${res.code}`)); });
    req.on('timeout', reject);
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-lwm2m-'));
  const children: ChildProcess[] = [];
  let cgroup: MemoryCgroup | string = 'no cgroup';
  try {
    const bundle = new URL('dist/bundle/', ROOT).pathname;
    const flags = deviceShifuNodeFlags('LwM2M');
    const mockFlags = await imageNodeFlags();
    const configDir = join(dir, 'config');
    await mkdir(configDir);
    await writeFile(join(configDir, 'instructions'), stringify({ instructions: { temperature: { readWrite: 'R', protocolPropertyList: { ObjectId: '/3303/0/5700' } } } }));
    await writeFile(join(dir, 'edgedevice.yaml'), stringify({ apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice', metadata: { name: 'edgedevice-lwm2m', namespace: 'devices' }, spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: 'leshan-client', securityMode: 'None' } } } }));
    cgroup = await memoryCgroup(`edgeshifu-bench-lwm2m-${String(process.pid)}`);
    const lwm2mPort = values['lwm2m-port'];
    const shifu = await start(join(bundle, 'deviceshifu.js'), ['--config-dir', configDir, '--edgedevice-file', join(dir, 'edgedevice.yaml'), '--port', '0', '--lwm2m-listen-port', lwm2mPort], (l) => l.msg === 'deviceShifu listening', {
      env: { EDGESHIFU_LOG_LEVEL: 'info' }, flags, ...(typeof cgroup === 'string' ? {} : { cgroup }),
    });
    children.push(shifu.child);
    const mock = await start(join(bundle, 'mockdevice.js'), ['lwm2m', '--lwm2m-server', `127.0.0.1:${lwm2mPort}`], (l) => typeof l.address === 'string', { env: { MOCKDEVICE_PORT: '0' }, flags: mockFlags });
    children.push(mock.child);
    const pid = shifu.child.pid ?? 0;
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 8 });
    const through = new URL(`http://${String(shifu.line.address)}/temperature`);
    await httpGet(agent, through, (body) => NUMBER.test(body));
    console.error(`deviceShifu answers; idle for ${String(IDLE_SECONDS)} s`);
    await delay(IDLE_SECONDS * 1000);
    const idle = `${await rssOf(pid)}; container ${typeof cgroup === 'string' ? cgroup : describeContainerMemory(await cgroup.read())}`;
    const coap = new CoapAgent({ type: 'udp4' });
    const direct = (): Promise<void> => coapGet(coap, '127.0.0.1', Number(mock.line.port));
    console.log(`LwM2M deviceShifu benchmark: node ${process.version}, deviceShifu ${flags.join(' ')}, mock ${mockFlags.join(' ')}, bundles in dist/bundle; mock client on loopback, /3303/0/5700 as text, up to ${REQUESTS} reads or ${SECONDS} s per row; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log('callers | target                 | reads/s | p50 ms | p99 ms | reads');
    for (const c of CONCURRENCY) {
      const base = await load(direct, c);
      const via = await load(() => httpGet(agent, through, (body) => NUMBER.test(body)), c);
      for (const [name, r] of [['node-coap direct', base], ['deviceShifu (HTTP)', via]] as const) {
        console.log(`${String(c).padStart(7)} | ${name.padEnd(22)} | ${r.rps.toFixed(0).padStart(7)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.count}`);
      }
      console.log(`${String(c).padStart(7)} | ratio                  | throughput ${(via.rps / base.rps).toFixed(2)}x, p50 ${(via.p50 / base.p50).toFixed(2)}x, p99 ${(via.p99 / base.p99).toFixed(2)}x`);
    }
    coap.close();
    agent.destroy();
    console.log(`deviceShifu idle (${String(IDLE_SECONDS)} s after the first read): ${idle}`);
    console.log(`deviceShifu after load: ${await rssOf(pid)}; container ${typeof cgroup === 'string' ? cgroup : describeContainerMemory(await cgroup.read())}`);
    console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    if (typeof cgroup !== 'string') await cgroup.remove();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
