// Modbus deviceShifu benchmark: the Modbus mock (TCP, on loopback), a float32 holding register read
// through deviceShifu (GET /float32 → JSON) versus modbus-serial's own client straight to the mock
// (readHoldingRegisters, decoded with Buffer), in the same run, at 1 and 8 callers; then
// deviceShifu's RSS and its container working set (bench/container-memory.ts), idle and after load.
//   npm run bench:deviceshifu -- --protocol modbus
// deviceShifu runs as the controller's Deployment runs it: the esbuild bundle on node with
// deviceShifu's own NODE_FLAGS (controller/bundle/node-flags.ts); the mock with the image's.
// Each row stops after BENCH_REQUESTS requests or BENCH_SECONDS seconds.
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import modbusSerial from 'modbus-serial';
import { stringify } from 'yaml';
import { describeContainerMemory, memoryCgroup, type MemoryCgroup } from './container-memory.ts';
import { deviceShifuNodeFlags, imageNodeFlags } from './node-flags.ts';
import { httpGet, load, REQUESTS, rssOf, SECONDS, start } from './protocol-load.ts';

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
const CONCURRENCY = [1, 8];
const ROOT = new URL('../', import.meta.url);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-modbus-'));
  const children: ChildProcess[] = [];
  let cgroup: MemoryCgroup | string = 'no cgroup';
  try {
    const bundle = new URL('dist/bundle/', ROOT).pathname;
    const flags = deviceShifuNodeFlags('Modbus');
    const mockFlags = await imageNodeFlags();
    const mock = await start(join(bundle, 'mockdevice.js'), ['modbus'], (l) => typeof l.address === 'string', { env: { MOCKDEVICE_PORT: '0' }, flags: mockFlags });
    children.push(mock.child);
    const address = String(mock.line.address);
    const configDir = join(dir, 'config');
    await mkdir(configDir);
    await writeFile(join(configDir, 'instructions'), stringify({ instructions: { float32: { readWrite: 'R', protocolPropertyList: { registerType: 'holding', address: '6', dataType: 'float32' } } } }));
    await writeFile(join(dir, 'edgedevice.yaml'), stringify({ apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice', metadata: { name: 'edgedevice-modbus', namespace: 'devices' }, spec: { protocol: 'Modbus', address, protocolSettings: { ModbusSetting: { mode: 'TCP', unitId: 1 } } } }));
    cgroup = await memoryCgroup(`edgeshifu-bench-modbus-${String(process.pid)}`);
    const shifu = await start(join(bundle, 'deviceshifu.js'), ['--config-dir', configDir, '--edgedevice-file', join(dir, 'edgedevice.yaml'), '--port', '0'], (l) => l.msg === 'deviceShifu listening', {
      env: { EDGESHIFU_LOG_LEVEL: 'info' }, flags, ...(typeof cgroup === 'string' ? {} : { cgroup }),
    });
    children.push(shifu.child);
    const pid = shifu.child.pid ?? 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const through = new URL(`http://${String(shifu.line.address)}/float32`);
    await httpGet(agent, through, (body) => body === '21.5');
    console.error(`deviceShifu answers; idle for ${String(IDLE_SECONDS)} s`);
    await delay(IDLE_SECONDS * 1000);
    const idle = `${await rssOf(pid)}; container ${typeof cgroup === 'string' ? cgroup : describeContainerMemory(await cgroup.read())}`;
    const client = new modbusSerial.default();
    const [host = '', port = ''] = address.split(':');
    await client.connectTCP(host, { port: Number(port) });
    console.error('modbus-serial client connected; loading');
    client.setID(1);
    client.setTimeout(2000);
    const direct = async (): Promise<void> => {
      const { buffer } = await client.readHoldingRegisters(6, 2);
      if (buffer.readFloatBE(0) !== 21.5) throw new Error('wrong value');
    };
    console.log(`Modbus deviceShifu benchmark: node ${process.version}, deviceShifu ${flags.join(' ')}, mock ${mockFlags.join(' ')}, bundles in dist/bundle; mock on loopback, float32 at holding 6, up to ${REQUESTS} reads or ${SECONDS} s per row; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log('callers | target                 | reads/s | p50 ms | p99 ms | reads');
    for (const c of CONCURRENCY) {
      const base = await load(direct, c);
      const via = await load(() => httpGet(agent, through, (body) => body === '21.5'), c);
      for (const [name, r] of [['modbus-serial direct', base], ['deviceShifu (HTTP)', via]] as const) {
        console.log(`${String(c).padStart(7)} | ${name.padEnd(22)} | ${r.rps.toFixed(0).padStart(7)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.count}`);
      }
      console.log(`${String(c).padStart(7)} | ratio                  | throughput ${(via.rps / base.rps).toFixed(2)}x, p50 ${(via.p50 / base.p50).toFixed(2)}x, p99 ${(via.p99 / base.p99).toFixed(2)}x`);
    }
    client.close(() => undefined);
    agent.destroy();
    console.log(`deviceShifu idle (${String(IDLE_SECONDS)} s after the first read): ${idle}`);
    console.log(`deviceShifu after load: ${await rssOf(pid)}; container ${typeof cgroup === 'string' ? cgroup : describeContainerMemory(await cgroup.read())}`);
    console.log(`load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    if (typeof cgroup !== 'string') await cgroup.remove();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
