// A deviceShifu in standalone mode, in this process: a ConfigMap directory laid out as the kubelet
// does, an EdgeDevice manifest file, and the gateway on 127.0.0.1:0. Stopped when the test ends.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { ExecutionContext } from 'ava';
import { stringify } from 'yaml';
import { createLogger } from '../../../shared/log.ts';
import type { EdgeDeviceSpec } from '../../../shared/crds/edgedevice.ts';
import { runStandalone, type RunningDeviceShifu } from '../../../deviceshifu/run.ts';
import { Settings } from '../../../deviceshifu/settings.ts';
import { loadConfig } from '../../../shared/config.ts';
import { ConfigDir } from './configdir.ts';

export interface TestGateway {
  readonly running: RunningDeviceShifu;
  readonly url: string;
  readonly config: ConfigDir;
  readonly logs: string[];
  /** Rewrites the EdgeDevice manifest file (hot reload). */
  readonly writeEdgeDevice: (spec: EdgeDeviceSpec, name?: string) => Promise<void>;
  readonly get: (path: string, init?: RequestInit) => Promise<Response>;
}

export interface GatewayInput {
  readonly data: Readonly<Record<string, string>>;
  readonly spec: EdgeDeviceSpec;
  readonly name?: string;
  /** Settings as flags, e.g. ['--body-limit-bytes', '1024']. */
  readonly argv?: readonly string[];
}

export function logSink(lines: string[]): Writable {
  return new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== '')); done(); } });
}

export async function startGateway(t: ExecutionContext, input: GatewayInput): Promise<TestGateway> {
  const config = await ConfigDir.create(t, input.data);
  const dir = await mkdtemp(join(tmpdir(), 'deviceshifu-edgedevice-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const edgedeviceFile = join(dir, 'edgedevice.yaml');
  const writeEdgeDevice = async (spec: EdgeDeviceSpec, name = input.name ?? 'edgedevice-test'): Promise<void> => {
    const tmp = `${edgedeviceFile}.tmp`;
    await writeFile(tmp, stringify({ apiVersion: 'shifu.edgenesis.io/v1alpha1', kind: 'EdgeDevice', metadata: { name, namespace: 'devices' }, spec }));
    const { rename } = await import('node:fs/promises');
    await rename(tmp, edgedeviceFile);
  };
  await writeEdgeDevice(input.spec);
  const logs: string[] = [];
  const settings = loadConfig(Settings, {
    argv: ['--port', '0', '--bind-address', '127.0.0.1', '--config-dir', config.dir, '--edgedevice-file', edgedeviceFile, ...(input.argv ?? [])],
    env: {},
  });
  const logger = createLogger('deviceshifu', { destination: logSink(logs), level: 'debug' });
  const running = await runStandalone({ settings, env: {}, logger, edgedeviceFile, pollMs: 200 });
  t.teardown(() => running.stop());
  const url = `http://127.0.0.1:${running.address.port}`;
  return { running, url, config, logs, writeEdgeDevice, get: (path, init) => fetch(`${url}${path}`, init) };
}
