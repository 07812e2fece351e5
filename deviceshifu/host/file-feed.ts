// The host without Kubernetes (--devices-dir): one directory per device, `<dir>/<device>/port`
// (the port to serve it on: HTTP on TCP, and an LwM2M device's server on UDP), `edgedevice.yaml`
// (its EdgeDevice manifest) and `config/` (its ConfigMap, one file per key, as dedicated
// standalone mode reads it; watched for changes). The set of devices is read once at start. For
// trying the host out and for the benchmark.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EdgeshifuError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import { readConfigFiles } from '../config/load.ts';
import { parseConfig } from '../config/parse.ts';
import { readEdgeDeviceFile } from '../standalone/edgedevice-file.ts';
import { fileTelemetryServices } from '../standalone/telemetry-services.ts';
import { fileSecrets } from '../standalone/secrets.ts';
import { watchSource } from '../watch-source.ts';
import type { Assignment } from './assignment.ts';
import type { DeviceFeed } from './host.ts';

/** One assignment per device directory; `configMap` holds the directory. */
export async function readDevicesDir(dir: string): Promise<Assignment[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: unknown) => {
    throw new EdgeshifuError('invalid', `devices directory ${dir} cannot be read: ${(err as Error).message}`);
  });
  const assignments: Assignment[] = [];
  for (const entry of entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    const port = Number((await readFile(join(path, 'port'), 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new EdgeshifuError('invalid', `${path}/port must hold the device's port (1-65535)`);
    assignments.push({ name: entry.name, namespace: 'devices', port, configMap: path });
  }
  return assignments;
}

export function fileFeed(assignment: Assignment, logger: Logger, options: { readonly secretsDir?: string; readonly pollMs?: number } = {}): DeviceFeed {
  const dir = assignment.configMap;
  return {
    sources: { secrets: fileSecrets(options.secretsDir), services: fileTelemetryServices(undefined) },
    follow: async (gateway, signal) => {
      const device = await readEdgeDeviceFile(join(dir, 'edgedevice.yaml'));
      const configDir = join(dir, 'config');
      const read = async (): Promise<string> => JSON.stringify(await readConfigFiles(configDir));
      const apply = async (snapshot: string): Promise<void> => {
        try {
          await gateway.update({ config: parseConfig(JSON.parse(snapshot) as Record<string, string>) });
        } catch (err) {
          logger.error({ err: (err as Error).message }, 'configuration rejected; the previous one stays in force');
        }
      };
      const initial = await read();
      await apply(initial);
      await gateway.update({ device: { ...device, name: assignment.name } });
      watchSource({ dir: configDir, read, initial, pollMs: options.pollMs ?? 5000, logger, signal, onChange: apply });
    },
  };
}
