// LwM2M on the shared per-node host: the working set of one host serving 1 and of one serving 10
// LwM2M devices (--devices-dir, each device's LwM2M server on UDP at its port's number, each with
// a mock client of its own registered), against a dedicated LwM2M deviceShifu in the same run.
// Each runs in a memory cgroup of its own (bench/container-memory.ts), with the NODE_FLAGS the
// controller gives it (a dedicated deviceShifu's, the host's); idle, then after 8 callers read
// every device in turn through HTTP (GET /temperature → CoAP GET to that device's client).
//   npm run bench:deviceshifu -- --protocol lwm2m --host [--idle-seconds 20]
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent as HttpAgent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { HOST_NODE_FLAGS } from '../controller/bundle/host.ts';
import { describeContainerMemory, memoryCgroup, type ContainerMemory, type MemoryCgroup } from './container-memory.ts';
import { deviceShifuNodeFlags } from './node-flags.ts';
import { httpGet, load, rssOf, start } from './protocol-load.ts';

const ROOT = new URL('../', import.meta.url);
const BUNDLE = new URL('dist/bundle/', ROOT).pathname;
const { values } = parseArgs({ options: { 'idle-seconds': { type: 'string', default: '20' }, 'first-port': { type: 'string', default: '26000' }, host: { type: 'boolean' } } });
const IDLE_SECONDS = Number(values['idle-seconds']);
const NUMBER = /^-?\d+(\.\d+)?$/;
const INSTRUCTIONS = stringify({ instructions: { temperature: { readWrite: 'R', protocolPropertyList: { ObjectId: '/3303/0/5700' } } } });
const edgeDevice = (name: string): string => stringify({ apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice', metadata: { name, namespace: 'devices' }, spec: { protocol: 'LwM2M', protocolSettings: { LwM2MSetting: { endpointName: name, securityMode: 'None' } } } });

interface Target {
  readonly label: string;
  readonly devices: number;
  readonly pid: number;
  readonly cgroup: MemoryCgroup | string;
  /** Each device's /temperature. */
  readonly urls: URL[];
}

interface Figures { readonly rss: string; readonly memory: ContainerMemory | undefined }

async function figures(target: Target): Promise<Figures> {
  return { rss: await rssOf(target.pid), memory: typeof target.cgroup === 'string' ? undefined : await target.cgroup.read() };
}

/** One device directory per device under `dir`, as `deviceshifu-host --devices-dir` reads them. */
async function devicesDir(dir: string, count: number, firstPort: number): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const name = `meter-${String(i)}`;
    const port = firstPort + i;
    await mkdir(join(dir, name, 'config'), { recursive: true });
    await writeFile(join(dir, name, 'port'), String(port));
    await writeFile(join(dir, name, 'edgedevice.yaml'), edgeDevice(name));
    await writeFile(join(dir, name, 'config', 'instructions'), INSTRUCTIONS);
    ports.push(port);
  }
  return ports;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-lwm2m-host-'));
  const children: ChildProcess[] = [];
  const cgroups: MemoryCgroup[] = [];
  const cgroupFor = async (label: string): Promise<MemoryCgroup | string> => {
    const made = await memoryCgroup(`edgeshifu-bench-lwm2m-${label}-${String(process.pid)}`);
    if (typeof made !== 'string') cgroups.push(made);
    return made;
  };
  const client = async (name: string, port: number): Promise<void> => {
    const mock = await start(join(BUNDLE, 'mockdevice.js'), ['lwm2m', '--lwm2m-server', `127.0.0.1:${String(port)}`, '--lwm2m-endpoint', name], (l) => typeof l.address === 'string', { env: { MOCKDEVICE_PORT: '0' } });
    children.push(mock.child);
  };
  try {
    const firstPort = Number(values['first-port']);
    const targets: Target[] = [];
    // the dedicated deviceShifu: its HTTP port 0, its LwM2M server on firstPort
    const dedicatedDir = join(dir, 'dedicated');
    await devicesDir(dedicatedDir, 1, firstPort);
    const cgroup = await cgroupFor('dedicated');
    const shifu = await start(join(BUNDLE, 'deviceshifu.js'), ['--config-dir', join(dedicatedDir, 'meter-0', 'config'), '--edgedevice-file', join(dedicatedDir, 'meter-0', 'edgedevice.yaml'), '--port', '0', '--lwm2m-listen-port', String(firstPort)],
      (l) => l.msg === 'deviceShifu listening', { flags: deviceShifuNodeFlags(), ...(typeof cgroup === 'string' ? {} : { cgroup }) });
    children.push(shifu.child);
    await client('meter-0', firstPort);
    targets.push({ label: 'dedicated deviceShifu', devices: 1, pid: shifu.child.pid ?? 0, cgroup, urls: [new URL(`http://${String(shifu.line.address)}/temperature`)] });
    for (const count of [1, 10]) {
      const hostDir = join(dir, `host-${String(count)}`);
      const ports = await devicesDir(hostDir, count, firstPort + 100 * count);
      const hostCgroup = await cgroupFor(`host-${String(count)}`);
      const host = await start(join(BUNDLE, 'deviceshifu-host.js'), ['--devices-dir', hostDir, '--admin-port', '0'], (l) => l.msg === 'deviceShifu host listening', { flags: [...HOST_NODE_FLAGS], ...(typeof hostCgroup === 'string' ? {} : { cgroup: hostCgroup }) });
      children.push(host.child);
      for (const [i, port] of ports.entries()) await client(`meter-${String(i)}`, port);
      targets.push({ label: `host, ${String(count)} device${count === 1 ? '' : 's'}`, devices: count, pid: host.child.pid ?? 0, cgroup: hostCgroup, urls: ports.map((p) => new URL(`http://127.0.0.1:${String(p)}/temperature`)) });
    }
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 8 });
    for (const target of targets) for (const url of target.urls) await httpGet(agent, url, (body) => NUMBER.test(body));
    console.error(`every device answers; idle for ${String(IDLE_SECONDS)} s`);
    await delay(IDLE_SECONDS * 1000);
    const idle = await Promise.all(targets.map(figures));
    for (const target of targets) {
      let next = 0;
      await load(() => httpGet(agent, target.urls[(next++) % target.urls.length] ?? target.urls[0] as URL, (body) => NUMBER.test(body)), 8);
    }
    const after = await Promise.all(targets.map(figures));
    agent.destroy();
    console.log(`LwM2M on the shared host: node ${process.version}; dedicated ${deviceShifuNodeFlags().join(' ')}, host ${HOST_NODE_FLAGS.join(' ')}; idle ${String(IDLE_SECONDS)} s; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const base = idle[0]?.memory?.workingSet;
    console.log('target | devices | idle working set (MiB) | per device | × dedicated | after load | per device');
    for (const [i, target] of targets.entries()) {
      const ws = idle[i]?.memory?.workingSet;
      const loaded = after[i]?.memory?.workingSet;
      const per = (n: number | undefined): string => (n === undefined ? '-' : (n / target.devices).toFixed(1));
      console.log(`${target.label} | ${String(target.devices)} | ${ws?.toFixed(1) ?? '-'} | ${per(ws)} | ${ws === undefined || base === undefined ? '-' : ((ws / target.devices) / base).toFixed(2)} | ${loaded?.toFixed(1) ?? '-'} | ${per(loaded)}`);
    }
    for (const [i, target] of targets.entries()) {
      const describe = (f: Figures | undefined): string => `${f?.rss ?? '-'}; container ${f?.memory === undefined ? (typeof target.cgroup === 'string' ? target.cgroup : '-') : describeContainerMemory(f.memory)}`;
      console.log(`${target.label}: idle ${describe(idle[i])}\n  after load ${describe(after[i])}`);
    }
    console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    for (const cgroup of cgroups) await cgroup.remove();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
